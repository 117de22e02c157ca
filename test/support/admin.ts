// The first admin every test app is bootstrapped with (its password is hashed once per run: global-setup.ts).
export const ADMIN = { email: 'admin@test.example', password: 'admin-password-123' };
