// Shown instead of any page while the user must change the password they were given.
import { useSession, useSignedIn } from '../session';
import { Button } from '../ui';
import { PasswordChangeForm } from './password-form';

export function ForcedPasswordPage() {
  const { user } = useSignedIn();
  const { signOut } = useSession();
  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <h1>Choose a new password</h1>
        <p>
          You signed in as <strong>{user.email}</strong> with a password someone else set. Choose your own before you go on.
        </p>
        <PasswordChangeForm onDone={() => undefined} submitLabel="Save new password" />
        <p className="auth-help">
          <Button variant="quiet" onPress={() => void signOut()}>
            Sign out instead
          </Button>
        </p>
      </main>
    </div>
  );
}
