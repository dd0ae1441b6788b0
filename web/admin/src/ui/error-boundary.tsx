// A page that fails while rendering shows a message instead of taking the whole app down; the
// navigation stays usable, and moving to another page starts afresh.
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Changes when the user moves to another page, which clears a caught error. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  key: string;
}

export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // Kept in the browser's console for whoever reports the problem.
    console.error('page failed', error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="message message-error" role="alert">
        <span>This page could not be shown ({this.state.error.message}). Reload the page, or go to another one.</span>
      </div>
    );
  }
}
