// Bulk deactivation of the selected users: each its own deactivateUser (its own audit entry and the same
// checks as one at a time: the last admin, a stronger user and oneself are refused per row, with the reason).
import { useState } from 'react';
import { useClient } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { BulkBar, BulkProgress, useBulkRunner, type BulkItem } from './bulk-actions.js';
import { Button, ConfirmDialog } from './ui.js';

const BulkDeactivateDocument = graphql(`
  mutation BulkDeactivateUser($id: ID!) {
    deactivateUser(id: $id) { id status }
  }
`);

export function UserBulkBar({ selected, onClear, onDone }: { selected: BulkItem[]; onClear: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const client = useClient();
  const runner = useBulkRunner();
  const [confirming, setConfirming] = useState(false);
  const context = { additionalTypenames: ['User'] };
  const deactivate = async () => {
    setConfirming(false);
    await runner.start(
      t('bulk.users.deactivate'),
      selected,
      async (u) => (await client.mutation(BulkDeactivateDocument, { id: u.id }, context).toPromise()).error,
    );
    onDone();
  };
  return (
    <>
      {selected.length ? (
        <BulkBar count={selected.length} onClear={onClear}>
          <Button variant="danger" onClick={() => setConfirming(true)} disabled={runner.run?.running ?? false}>
            {t('bulk.users.deactivate')}…
          </Button>
        </BulkBar>
      ) : null}
      {runner.run ? <BulkProgress run={runner.run} onStop={runner.stop} onClose={runner.clear} /> : null}
      <ConfirmDialog
        title={t('bulk.users.deactivate')}
        body={t('bulk.users.confirm', { count: selected.length })}
        confirmLabel={t('bulk.apply', { count: selected.length })}
        open={confirming}
        onConfirm={() => void deactivate()}
        onClose={() => setConfirming(false)}
      />
    </>
  );
}
