import React from "react";

type ToolbarProps = {
  title: string;
  onSave: () => void;
};

export function Toolbar({ title, onSave }: ToolbarProps) {
  return (
    <header className="toolbar">
      <h1>{title}</h1>
      <button onClick={onSave}>Save</button>
    </header>
  );
}

export class Counter extends React.Component<{}, { count: number }> {
  state = { count: 0 };

  increment(): void {
    this.setState({ count: this.state.count + 1 });
  }

  render() {
    return <span>{this.state.count}</span>;
  }
}
