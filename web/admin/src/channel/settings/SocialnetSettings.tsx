import { useEffect, useMemo, useState } from 'react';
import { Form } from 'react-aria-components';
import { messageOf } from '../../api';
import { Button, CheckboxField, ErrorMessage, Loading, TextField, useLoad } from '../../ui';
import { channelApi } from '../channel-api';
import { fieldsOf, StatusLine, type Notice } from '../bits';
import type { Channel, SocialnetChatSettings as Settings } from '../types';
import { MenuEditor } from './MenuEditor';
import { menuFromApi, menuToApi, newKey } from './menu-model';
import { PAYLOAD_MAX, socialnetProblems, type SocialnetDraft } from './menu-rules';
import { WhitelistEditor } from './WhitelistEditor';

function draftOf(s: Settings): SocialnetDraft {
  return {
    getStarted: s.get_started_button ? s.get_started_button.payload : null,
    menu: menuFromApi(s.menu),
    userInputs: (s.user_inputs ?? []).map((u) => ({ key: newKey(), locale: u.locale, enabled: u.enabled })),
    whitelist: s.domains_whitelist ?? [],
  };
}

function patchOf(d: SocialnetDraft): Settings {
  return {
    get_started_button: d.getStarted === null ? null : { payload: d.getStarted },
    menu: menuToApi(d.menu),
    user_inputs: d.userInputs.length === 0 ? null : d.userInputs.map((u) => ({ locale: u.locale, enabled: u.enabled })),
    domains_whitelist: d.whitelist.length === 0 ? null : d.whitelist,
  };
}

/**
 * socialnet_chat: the get started button, the persistent menu, user input per locale and the
 * domains whitelist. The spec's rules are checked as the user edits; saving sends every setting
 * (null deletes one) and the API's 422 is shown at the field it names. These settings act on
 * the platform, whose rate limit is low.
 */
export function SocialnetSettings({ channel }: { channel: Channel }) {
  const loaded = useLoad(() => channelApi.settings<Settings>(channel.id), [channel.id]);
  const [draft, setDraft] = useState<SocialnetDraft | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (loaded.data) setDraft(draftOf(loaded.data));
  }, [loaded.data]);

  const problems = useMemo(() => (draft ? socialnetProblems(draft) : {}), [draft]);
  if (loaded.error) return <ErrorMessage onRetry={() => void loaded.reload()}>{loaded.error}</ErrorMessage>;
  if (!loaded.data || !draft) return <Loading />;

  const errors = { ...serverErrors, ...problems };
  const change = (next: Partial<SocialnetDraft>) => {
    setDraft({ ...draft, ...next });
    setServerErrors({});
  };

  const save = async () => {
    if (Object.keys(problems).length > 0) {
      setNotice({
        tone: 'error',
        text: `Not saved: ${Object.keys(problems).length === 1 ? 'one field breaks a rule' : `${Object.keys(problems).length} fields break a rule`} (marked below).`,
      });
      return;
    }
    setBusy(true);
    try {
      const answer = await channelApi.updateSettings<Settings>(channel.id, patchOf(draft));
      setDraft(draftOf(answer));
      setServerErrors({});
      setNotice({ tone: 'ok', text: 'Settings saved on the platform.' });
    } catch (error) {
      const fields = fieldsOf(error);
      setServerErrors(fields);
      const where = Object.keys(fields)[0];
      setNotice({ tone: 'error', text: where ? `Not saved: ${fields[where]} (${where})` : messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Form
      validationBehavior="aria"
      className="ch-tab"
      aria-label="Page settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <StatusLine notice={notice} />
      <section className="ch-card" aria-labelledby="ch-started-title">
        <h3 id="ch-started-title">Get started button</h3>
        <CheckboxField
          label="Show a get started button"
          isSelected={draft.getStarted !== null}
          onChange={(on) => change({ getStarted: on ? (loaded.data?.get_started_button?.payload ?? 'GET_STARTED') : null })}
          description="Pressing it sends a postback event with the payload below. A menu needs it."
        />
        {draft.getStarted !== null && (
          <TextField
            label="Get started payload"
            value={draft.getStarted}
            onChange={(getStarted) => change({ getStarted })}
            error={errors['get_started_button.payload'] ?? errors.get_started_button}
            description={`${draft.getStarted.length}/${PAYLOAD_MAX} characters`}
          />
        )}
      </section>
      <section className="ch-card" aria-labelledby="ch-menu-title">
        <h3 id="ch-menu-title" className="ch-sr-only">
          Menu
        </h3>
        <MenuEditor value={draft.menu} onChange={(menu) => change({ menu })} problems={errors} />
      </section>
      <section className="ch-card" aria-labelledby="ch-inputs-title">
        <h3 id="ch-inputs-title">User input</h3>
        <p className="ch-hint">Per locale, whether people may type freely. A default entry is required; turning input off requires a menu.</p>
        {errors.user_inputs && (
          <p className="field-error" role="alert">
            {errors.user_inputs}
          </p>
        )}
        {draft.userInputs.map((u, i) => (
          <div key={u.key} className="ch-row" role="group" aria-label={`User input for ${u.locale || 'unnamed locale'}`}>
            <TextField
              label="Locale"
              value={u.locale}
              onChange={(locale) => change({ userInputs: draft.userInputs.map((x, j) => (j === i ? { ...x, locale } : x)) })}
              error={errors[`user_inputs[${i}].locale`]}
            />
            <CheckboxField
              label="People may type messages"
              isSelected={u.enabled}
              onChange={(enabled) => change({ userInputs: draft.userInputs.map((x, j) => (j === i ? { ...x, enabled } : x)) })}
            />
            <Button
              variant="quiet"
              onPress={() => change({ userInputs: draft.userInputs.filter((_, j) => j !== i) })}
              aria-label={`Remove user input for ${u.locale || 'unnamed locale'}`}
            >
              Remove
            </Button>
          </div>
        ))}
        <Button
          onPress={() =>
            change({
              userInputs: [
                ...draft.userInputs,
                { key: newKey(), locale: draft.userInputs.some((u) => u.locale === 'default') ? '' : 'default', enabled: true },
              ],
            })
          }
        >
          Add a locale
        </Button>
      </section>
      <section className="ch-card" aria-labelledby="ch-sn-whitelist-title">
        <h3 id="ch-sn-whitelist-title" className="ch-sr-only">
          Domains whitelist
        </h3>
        <WhitelistEditor
          field="domains_whitelist"
          value={draft.whitelist}
          onChange={(whitelist) => change({ whitelist })}
          errors={errors}
          intro="Origins of your sites that use platform features such as web views and plugins."
        />
      </section>
      <div className="ch-actions ch-sticky">
        <Button type="submit" variant="primary" isPending={busy}>
          Save settings
        </Button>
        {Object.keys(problems).length > 0 && (
          <span className="field-error">
            {Object.keys(problems).length === 1 ? 'One field breaks a rule.' : `${Object.keys(problems).length} fields break a rule.`}
          </span>
        )}
      </div>
    </Form>
  );
}
