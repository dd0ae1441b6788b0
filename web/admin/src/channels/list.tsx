// The account's channels: name, type, mode, state and webhook, a page of 50 at a time.
import { useState } from 'react';
import { api } from '../api';
import { PageHeader } from '../layout';
import { APP_BASE } from '../router';
import { Button, ButtonLink, Cell, Column, ErrorMessage, Link, Loading, Row, Table, TableBody, TableHeader, useLoad } from '../ui';
import { typeLabelOf, useChannelTypes } from './channel-types';
import { channelPath } from './paths';
import { stateOf } from './state';

const PAGE = 50;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function ChannelsPage() {
  const [offset, setOffset] = useState(0);
  const types = useChannelTypes();
  const loaded = useLoad((signal) => api.page('/v1/channels', { query: { max: PAGE, offset }, signal }), [offset]);

  return (
    <>
      <PageHeader title="Channels" description="Each channel is one connection to a messaging platform.">
        <ButtonLink variant="primary" href={`${APP_BASE}/channels/new`}>
          New channel
        </ButtonLink>
      </PageHeader>
      {loaded.error ? <ErrorMessage onRetry={() => void loaded.reload()}>{loaded.error}</ErrorMessage> : null}
      {(!loaded.data || !types) && !loaded.error ? <Loading label="Loading channels…" /> : null}
      {loaded.data && types ? (
        <>
          <Table aria-label="Channels">
            <TableHeader>
              <Column isRowHeader>Name</Column>
              <Column>Type</Column>
              <Column>Mode</Column>
              <Column>State</Column>
              <Column>Webhook</Column>
            </TableHeader>
            <TableBody
              items={loaded.data.items}
              renderEmptyState={() => (
                <p className="table-empty">
                  No channels yet. <Link href={`${APP_BASE}/channels/new`}>Create your first channel</Link>.
                </p>
              )}
            >
              {(channel) => {
                const state = stateOf(
                  channel,
                  types?.find((t) => t.type === channel.type),
                );
                return (
                  <Row id={channel.id}>
                    <Cell textValue={channel.name}>
                      <Link href={channelPath(channel.id)}>{channel.name}</Link>
                    </Cell>
                    <Cell>{typeLabelOf(types, channel.type, true)}</Cell>
                    <Cell>{channel.mode ? <span className={`badge badge-mode-${channel.mode}`}>{channel.mode}</span> : '—'}</Cell>
                    <Cell textValue={state.label}>
                      <span className={`badge badge-${state.tone}`} title={state.description}>
                        {state.label}
                      </span>
                    </Cell>
                    <Cell>{channel.webhook ? <span className="mono">{hostOf(channel.webhook.url)}</span> : <span className="muted">none</span>}</Cell>
                  </Row>
                );
              }}
            </TableBody>
          </Table>
          {loaded.data.total > PAGE ? (
            <div className="pager">
              <Button onPress={() => setOffset(Math.max(0, offset - PAGE))} isDisabled={offset === 0}>
                Previous
              </Button>
              <span>
                {offset + 1}–{Math.min(offset + PAGE, loaded.data.total)} of {loaded.data.total}
              </span>
              <Button onPress={() => setOffset(offset + PAGE)} isDisabled={offset + PAGE >= loaded.data.total}>
                Next
              </Button>
            </div>
          ) : null}
        </>
      ) : null}
    </>
  );
}
