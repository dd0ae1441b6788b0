import type { ChannelType } from '../../schemas/channel-types.js';
import { ROLE_NAMES, type Connector, type ConnectorRoles, type RoleName } from './connector.js';

/**
 * Connectors by channel type. A type with no connector yet has none registered, and a connector
 * without a role answers no role: callers decide what that means (502, nothing to fetch, ...).
 */
export class ConnectorRegistry {
  private readonly byType = new Map<ChannelType, Connector>();

  register(connector: Connector): this {
    this.byType.set(connector.type, connector);
    return this;
  }

  has(type: ChannelType): boolean {
    return this.byType.has(type);
  }

  /** The type's implementation of a role, or undefined when the type has no connector or its connector does not play the role. */
  role<K extends RoleName>(type: ChannelType, role: K): ConnectorRoles[K] | undefined {
    const roles = this.byType.get(type)?.roles;
    return roles && Object.hasOwn(roles, role) ? roles[role] : undefined;
  }

  /** The roles a type's connector plays, in the contract's order (empty without a connector). */
  rolesOf(type: ChannelType): RoleName[] {
    return ROLE_NAMES.filter((role) => this.role(type, role) !== undefined);
  }
}
