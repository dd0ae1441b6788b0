// The frame of every signed-in page: skip link, header with the account, main navigation, and
// the account menu (password change, sign out).
import { useState, type ReactNode } from 'react';
import { Link as AriaLink, Menu, MenuItem, MenuTrigger, Popover, Button as AriaButton, Separator, Header, Section } from 'react-aria-components';
import { APP_BASE, useLocation } from './router';
import { useSession, useSignedIn } from './session';
import { AppDialog } from './ui';
import { PasswordChangeForm } from './pages/password-form';

interface NavItem {
  href: string;
  label: string;
  /** Other paths that belong to this item (sub-pages). */
  prefix?: string;
  ownerOnly?: boolean;
}

export const NAV: NavItem[] = [
  { href: `${APP_BASE}/`, label: 'Overview' },
  { href: `${APP_BASE}/channels`, label: 'Channels', prefix: `${APP_BASE}/channels` },
  { href: `${APP_BASE}/api-settings`, label: 'API settings' },
  { href: `${APP_BASE}/users`, label: 'Users', ownerOnly: true },
];

function isCurrent(item: NavItem, pathname: string): boolean {
  const path = pathname.endsWith('/') && pathname.length > 1 ? pathname.slice(0, -1) : pathname;
  const href = item.href.endsWith('/') ? item.href.slice(0, -1) : item.href;
  if (path === href) return true;
  return item.prefix !== undefined && path.startsWith(`${item.prefix}/`);
}

function AccountMenu() {
  const { user, account } = useSignedIn();
  const { signOut } = useSession();
  const [changing, setChanging] = useState(false);
  return (
    <>
      <MenuTrigger>
        <AriaButton className="account-button">
          <span className="visually-hidden">Account menu, signed in as </span>
          <span className="account-email">{user.email}</span>
          <span className="account-role">{user.role}</span>
          <span aria-hidden="true">▾</span>
        </AriaButton>
        <Popover className="popover" placement="bottom end">
          <Menu
            className="menu"
            onAction={(key) => {
              if (key === 'password') setChanging(true);
              if (key === 'sign-out') void signOut();
            }}
          >
            <Section>
              <Header className="menu-header">
                {account.name} · {account.plan} plan
              </Header>
              <MenuItem id="password" className="menu-item">
                Change password
              </MenuItem>
            </Section>
            <Separator className="menu-separator" />
            <MenuItem id="sign-out" className="menu-item">
              Sign out
            </MenuItem>
          </Menu>
        </Popover>
      </MenuTrigger>
      <AppDialog title="Change password" isOpen={changing} onOpenChange={setChanging}>
        <PasswordChangeForm onDone={() => setChanging(false)} onCancel={() => setChanging(false)} />
      </AppDialog>
    </>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const { isOwner, account } = useSignedIn();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <AriaLink href={`${APP_BASE}/`} className="brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          <span className="brand-name">Parley</span>
          <span className="visually-hidden">, account </span>
          <span className="brand-account">{account.name}</span>
        </AriaLink>
        <nav aria-label="Main" className="nav">
          <ul>
            {NAV.filter((item) => !item.ownerOnly || isOwner).map((item) => {
              const current = isCurrent(item, pathname);
              return (
                <li key={item.href}>
                  <AriaLink href={item.href} className="nav-link" aria-current={current ? 'page' : undefined}>
                    {item.label}
                  </AriaLink>
                </li>
              );
            })}
          </ul>
        </nav>
        <AccountMenu />
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** A page's heading row: the title and its main actions. */
export function PageHeader({ title, children, description }: { title: string; children?: ReactNode; description?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {children ? <div className="page-actions">{children}</div> : null}
    </div>
  );
}
