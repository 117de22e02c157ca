// Every migration, in order. Listed statically so the built server and the tests run the same classes.
import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';

export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
];
