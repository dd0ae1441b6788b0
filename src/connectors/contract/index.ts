/**
 * The connector contract: small role interfaces a platform's connector implements (roles by
 * name in connector.ts), the values they exchange with the domain, and the registry that answers
 * which role a type's connector plays. docs/connectors.md describes each role and which
 * platform needs it.
 */
export * from './result.js';
export * from './channel.js';
export * from './outbound.js';
export * from './sent-lookup.js';
export * from './inbound-call.js';
export * from './inbound-events.js';
export * from './inbound.js';
export * from './platform-reads.js';
export * from './channel-setup.js';
export * from './capabilities.js';
export * from './connector.js';
export * from './registry.js';
export * from './credential-cache.js';
