// Every migration, in order. Listed statically so the built server and the tests run the same classes.
import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';
import { Migration20261122010000_login_attempts } from './Migration20261122010000_login_attempts.js';

export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_login_attempts', class: Migration20261122010000_login_attempts },
];
