// Buttons and button-looking links. A variant sets the look; React Aria gives press, focus and
// keyboard handling.
import { Button as AriaButton, Link as AriaLink, type ButtonProps as AriaButtonProps, type LinkProps as AriaLinkProps } from 'react-aria-components';

export type Variant = 'primary' | 'secondary' | 'danger' | 'quiet';

function classes(variant: Variant, extra: unknown): string {
  return ['button', `button-${variant}`, typeof extra === 'string' ? extra : ''].filter(Boolean).join(' ');
}

export interface ButtonProps extends AriaButtonProps {
  variant?: Variant;
}

/**
 * `isPending` disables the button and marks it busy. (React Aria's own pending state announces
 * through a live region that points at the button by id, which outlives the button when the
 * action moves to another page and leaves an unnamed element behind.)
 */
export function Button({ variant = 'secondary', className, isPending, isDisabled, children, ...props }: ButtonProps) {
  return (
    <AriaButton
      {...props}
      isDisabled={isDisabled || isPending}
      aria-busy={isPending || undefined}
      data-pending={isPending || undefined}
      className={classes(variant, className)}
    >
      {children}
    </AriaButton>
  );
}

export interface ButtonLinkProps extends AriaLinkProps {
  variant?: Variant;
}

/** A link (navigation) that looks like a button. */
export function ButtonLink({ variant = 'secondary', className, ...props }: ButtonLinkProps) {
  return <AriaLink {...props} className={classes(variant, className)} />;
}

/** A plain text link inside the app (client-side navigation through the router). */
export function Link({ className, ...props }: AriaLinkProps) {
  return <AriaLink {...props} className={['link', typeof className === 'string' ? className : ''].filter(Boolean).join(' ')} />;
}
