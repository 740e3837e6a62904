// The wire contract (see docs PROTOCOL.md): zod schemas with their inferred types. Imports only zod.
export * from './jsonrpc';
export * from './common';
export * from './items';
export * from './thread';
export * from './initialize';
export * from './requests';
export * from './service-requests';
export * from './weft-setup';
export * from './weft-git';
export * from './review';
export * from './notifications';
export * from './server-requests';
export * from './response-items';
export * from './rollout';
export * from './errors';
export * from './open-union';
export * from './methods';
