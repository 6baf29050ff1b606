// A rendering bug in one view must never leave a blank window: the view is
// replaced by a message and the document stays in memory.
import { Component, type ReactNode } from "react";

type Props = { children: ReactNode; onReset: () => void };
type State = { error: Error | null };

export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="banner banner-error" role="alert">
        <p>This view failed to display: {this.state.error.message}. Your playbook is kept; nothing was lost.</p>
        <button
          type="button"
          onClick={() => {
            this.setState({ error: null });
            this.props.onReset();
          }}
        >
          Back to the editor
        </button>
      </div>
    );
  }
}
