import { Component, type ErrorInfo, type ReactNode } from "react";

/**
 * React's error boundary: a part of the page that throws while drawing (a form over a
 * schema it cannot draw, an unexpected value) shows a note instead of blanking the page.
 */
export class Fallback extends Component<{ what: string; children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.warn(`${this.props.what} could not be drawn`, error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="note bad" role="alert">
        {this.props.what} could not be drawn: {this.state.error.message}
      </div>
    );
  }
}
