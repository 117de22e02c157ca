// Bulk revocation of the selected API keys of one user: each its own revokeApiKey / revokeMyApiKey (its own
// audit entry and the same checks as one at a time), failures listed per row with the reason. A revocation
// cannot be undone: the confirmation says so, and no Undo is offered afterwards.
import { useState } from 'react';
import { useClient } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { BulkBar, BulkProgress, useBulkRunner, type BulkItem } from './bulk-actions.js';
import { Button, ConfirmDialog } from './ui.js';

const BulkRevokeDocument = graphql(`
  mutation BulkRevokeApiKey($userId: ID!, $keyId: ID!) {
    revokeApiKey(userId: $userId, keyId: $keyId)
  }
`);

const BulkRevokeMyDocument = graphql(`
  mutation BulkRevokeMyApiKey($keyId: ID!) {
    revokeMyApiKey(keyId: $keyId)
  }
`);

/** `userId`: an agent's keys (revokeApiKey); without it the caller's own (revokeMyApiKey). */
export function KeyBulkBar({ userId, selected, onClear, onDone }: { userId?: string; selected: BulkItem[]; onClear: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const client = useClient();
  const runner = useBulkRunner();
  const [confirming, setConfirming] = useState(false);
  const context = { additionalTypenames: ['ApiKey', 'CreatedApiKey'] };
  const revoke = async () => {
    setConfirming(false);
    await runner.start(t('bulk.keys.revoke'), selected, async (k) =>
      userId
        ? (await client.mutation(BulkRevokeDocument, { userId, keyId: k.id }, context).toPromise()).error
        : (await client.mutation(BulkRevokeMyDocument, { keyId: k.id }, context).toPromise()).error,
    );
    onDone();
  };
  return (
    <>
      {selected.length ? (
        <BulkBar count={selected.length} onClear={onClear}>
          <Button variant="danger" onClick={() => setConfirming(true)} disabled={runner.run?.running ?? false}>
            {t('bulk.keys.revoke')}…
          </Button>
        </BulkBar>
      ) : null}
      {runner.run ? <BulkProgress run={runner.run} onStop={runner.stop} onClose={runner.clear} /> : null}
      <ConfirmDialog
        title={t('bulk.keys.revoke')}
        body={t('bulk.keys.confirm', { count: selected.length })}
        confirmLabel={t('bulk.apply', { count: selected.length })}
        open={confirming}
        onConfirm={() => void revoke()}
        onClose={() => setConfirming(false)}
      />
    </>
  );
}
