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

export function Button({ variant = 'secondary', className, ...props }: ButtonProps) {
  return <AriaButton {...props} className={classes(variant, className)} />;
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
