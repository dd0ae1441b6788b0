// Every page of the app and its path. The channel detail frame's tabs are listed separately in
// src/channel/routes.tsx; the frame matches them under /admin/channels/:id/*.
import { ChannelFramePage } from './channels/frame';
import { CreateChannelPage } from './channels/create';
import { EditChannelPage } from './channels/edit';
import { ChannelsPage } from './channels/list';
import { ApiSettingsPage } from './pages/api-settings';
import { OverviewPage } from './pages/overview';
import { SetupPage } from './pages/setup';
import { SignInPage } from './pages/sign-in';
import { UsersPage } from './pages/users';
import { APP_BASE, type RouteEntry } from './router';

export const routes: RouteEntry[] = [
  { path: `${APP_BASE}/sign-in`, title: 'Sign in', Component: SignInPage, public: true },
  { path: `${APP_BASE}/setup`, title: 'Set your password', Component: SetupPage, public: true },
  { path: `${APP_BASE}`, title: 'Overview', Component: OverviewPage },
  { path: `${APP_BASE}/channels`, title: 'Channels', Component: ChannelsPage },
  { path: `${APP_BASE}/channels/new`, title: 'New channel', Component: CreateChannelPage },
  { path: `${APP_BASE}/channels/:id/edit`, title: 'Edit channel', Component: EditChannelPage },
  { path: `${APP_BASE}/channels/:id/*`, title: 'Channel', Component: ChannelFramePage },
  { path: `${APP_BASE}/api-settings`, title: 'API settings', Component: ApiSettingsPage },
  { path: `${APP_BASE}/users`, title: 'Users', Component: UsersPage },
];
