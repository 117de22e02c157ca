// Every migration, in order. Listed statically so the built server and the tests run the same classes.
import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';
import { Migration20261122010000_login_attempts } from './Migration20261122010000_login_attempts.js';
import { Migration20261123200000_concurrent_appends } from './Migration20261123200000_concurrent_appends.js';
import { Migration20261124010000_event_feed } from './Migration20261124010000_event_feed.js';
import { Migration20261124100000_audit_log } from './Migration20261124100000_audit_log.js';
import { Migration20261124110000_identity_versions_and_key_scopes } from './Migration20261124110000_identity_versions_and_key_scopes.js';
import { Migration20261124120000_idempotency_keys } from './Migration20261124120000_idempotency_keys.js';
import { Migration20261124200000_feed_wakeups_after_commit } from './Migration20261124200000_feed_wakeups_after_commit.js';
import { Migration20261125000000_user_grants_function } from './Migration20261125000000_user_grants_function.js';
import { Migration20261125100000_feed_horizon_per_database } from './Migration20261125100000_feed_horizon_per_database.js';
import { Migration20261125120000_api_key_overlap_end } from './Migration20261125120000_api_key_overlap_end.js';
import { Migration20261125230000_feed_horizon_wrap } from './Migration20261125230000_feed_horizon_wrap.js';
import { Migration20261126010000_list_indexes } from './Migration20261126010000_list_indexes.js';
import { Migration20261126030000_oauth_store } from './Migration20261126030000_oauth_store.js';
import { Migration20261126040000_webhooks } from './Migration20261126040000_webhooks.js';
import { Migration20261126050000_second_factor } from './Migration20261126050000_second_factor.js';
import { Migration20261126100000_tension_snapshots } from './Migration20261126100000_tension_snapshots.js';
import { Migration20261126110000_oidc_sign_in } from './Migration20261126110000_oidc_sign_in.js';
import { Migration20261126120000_tension_search } from './Migration20261126120000_tension_search.js';
import { Migration20261126130000_dashboard_rollups } from './Migration20261126130000_dashboard_rollups.js';
import { Migration20261128130000_rollups_per_statement } from './Migration20261128130000_rollups_per_statement.js';
import { Migration20261128170000_webhook_deliveries_lighter } from './Migration20261128170000_webhook_deliveries_lighter.js';

export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_login_attempts', class: Migration20261122010000_login_attempts },
  { name: 'Migration20261123200000_concurrent_appends', class: Migration20261123200000_concurrent_appends },
  { name: 'Migration20261124010000_event_feed', class: Migration20261124010000_event_feed },
  { name: 'Migration20261124100000_audit_log', class: Migration20261124100000_audit_log },
  { name: 'Migration20261124110000_identity_versions_and_key_scopes', class: Migration20261124110000_identity_versions_and_key_scopes },
  { name: 'Migration20261124120000_idempotency_keys', class: Migration20261124120000_idempotency_keys },
  { name: 'Migration20261124200000_feed_wakeups_after_commit', class: Migration20261124200000_feed_wakeups_after_commit },
  { name: 'Migration20261125000000_user_grants_function', class: Migration20261125000000_user_grants_function },
  { name: 'Migration20261125100000_feed_horizon_per_database', class: Migration20261125100000_feed_horizon_per_database },
  { name: 'Migration20261125120000_api_key_overlap_end', class: Migration20261125120000_api_key_overlap_end },
  { name: 'Migration20261125230000_feed_horizon_wrap', class: Migration20261125230000_feed_horizon_wrap },
  { name: 'Migration20261126010000_list_indexes', class: Migration20261126010000_list_indexes },
  { name: 'Migration20261126030000_oauth_store', class: Migration20261126030000_oauth_store },
  { name: 'Migration20261126040000_webhooks', class: Migration20261126040000_webhooks },
  { name: 'Migration20261126050000_second_factor', class: Migration20261126050000_second_factor },
  { name: 'Migration20261126100000_tension_snapshots', class: Migration20261126100000_tension_snapshots },
  { name: 'Migration20261126110000_oidc_sign_in', class: Migration20261126110000_oidc_sign_in },
  { name: 'Migration20261126120000_tension_search', class: Migration20261126120000_tension_search },
  { name: 'Migration20261126130000_dashboard_rollups', class: Migration20261126130000_dashboard_rollups },
  { name: 'Migration20261128130000_rollups_per_statement', class: Migration20261128130000_rollups_per_statement },
  { name: 'Migration20261128170000_webhook_deliveries_lighter', class: Migration20261128170000_webhook_deliveries_lighter },
];
