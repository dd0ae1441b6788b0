import { useEffect, useState } from 'react';
import { messageOf } from '../../api';
import { Button, ErrorMessage, Loading, useLoad } from '../../ui';
import { channelApi } from '../channel-api';
import { fieldsOf, StatusLine, type Notice } from '../bits';
import type { Channel, ServiceChatSettings as Settings } from '../types';
import { whitelistProblems } from './menu-rules';
import { WhitelistEditor } from './WhitelistEditor';
import { WidgetPreview } from './WidgetPreview';
import { WidgetSnippet } from './WidgetSnippet';

/** service_chat: the whitelist of page origins, the snippet, and a live preview of the widget. */
export function ServiceChatSettings({ channel }: { channel: Channel }) {
  const loaded = useLoad(() => channelApi.settings<Settings>(channel.id), [channel.id]);
  const [list, setList] = useState<string[]>([]);
  const [saved, setSaved] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (loaded.data) {
      setList(loaded.data.domains_whitelist ?? []);
      setSaved(loaded.data.domains_whitelist ?? []);
    }
  }, [loaded.data]);

  const save = async (next: string[]) => {
    const problems = whitelistProblems(next, 'domains_whitelist');
    if (Object.keys(problems).length > 0) {
      setErrors(problems);
      setNotice({ tone: 'error', text: 'Fix the marked entries first.' });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      const answer = await channelApi.updateSettings<Settings>(channel.id, { domains_whitelist: next.length === 0 ? null : next });
      setList(answer.domains_whitelist ?? []);
      setSaved(answer.domains_whitelist ?? []);
      setNotice({ tone: 'ok', text: 'Whitelist saved.' });
    } catch (error) {
      setErrors(fieldsOf(error));
      setNotice({ tone: 'error', text: messageOf(error) });
    } finally {
      setBusy(false);
    }
  };

  if (loaded.error) return <ErrorMessage onRetry={() => void loaded.reload()}>{loaded.error}</ErrorMessage>;
  if (!loaded.data) return <Loading />;
  const dirty = JSON.stringify(list) !== JSON.stringify(saved);
  const here = window.location.origin;
  return (
    <div className="ch-tab">
      <StatusLine notice={notice} />
      <section className="ch-card" aria-labelledby="ch-whitelist-title">
        <h3 id="ch-whitelist-title">Who may open the chat</h3>
        <WhitelistEditor
          field="domains_whitelist"
          value={list}
          onChange={setList}
          errors={errors}
          intro="Pages on these origins may connect to this channel's chat. localhost must be listed to try the chat locally."
        />
        <div className="ch-actions">
          <Button variant="primary" onPress={() => void save(list)} isPending={busy} isDisabled={!dirty}>
            Save whitelist
          </Button>
          {dirty && <span className="ch-muted">Unsaved changes.</span>}
        </div>
      </section>
      <WidgetSnippet channelId={channel.id} />
      <WidgetPreview
        channelId={channel.id}
        allowed={saved.some((o) => o.toLowerCase() === here.toLowerCase())}
        onAllow={() => void save([...saved, here])}
        title="Live preview"
      />
    </div>
  );
}
