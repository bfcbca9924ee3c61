import { cloneElement, type ComponentChildren, isValidElement } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api';

export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) {
    const fields = error.details.map((detail) => `${detail.field} ${detail.message}`).join('; ');
    return fields && !error.message.includes(fields) ? `${error.message} (${fields})` : error.message;
  }
  return 'Something went wrong in the console. Reload the page and try again.';
}

/**
 * Loads something once (and again on `reload`), keeping the error in words. Only the read started
 * last is shown: reloads overlap when changes come quickly, and an earlier one answering last would
 * put back what a later change replaced.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const latest = useRef(0);
  const reload = useCallback(() => {
    const read = ++latest.current;
    load().then(
      (loaded) => {
        if (read !== latest.current) return;
        setValue(loaded);
        setError(undefined);
      },
      (failure: unknown) => {
        if (read === latest.current) setError(messageOf(failure));
      },
    );
  }, deps);
  useEffect(reload, [reload]);
  return { value, error, reload };
}

/** Runs a user's action, remembering its error in words until the next one. */
export function useAction() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

export function Page(props: { title: string; intro?: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Vigil`;
  }, [props.title]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{props.title}</h1>
      {props.intro && <p class="intro">{props.intro}</p>}
      {props.children}
    </section>
  );
}

export function ErrorNote(props: { error?: string }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

export function Loading() {
  return <p aria-live="polite">Loading…</p>;
}

export const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : '—');

/** A secret shown once, with a copy button; it is not kept anywhere by the console. */
export function ShownOnce(props: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="once" role="status">
      <p>
        <strong>{props.label}</strong> It is shown only now: copy it and keep it safe.
      </p>
      <code data-testid="secret">{props.value}</code>
      <div class="row">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(props.value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * A labelled control. The label points at the control (for/id) rather than wrapping it, so the
 * control's accessible name is the label alone, not the label followed by every option of a select.
 */
export function Field(props: { label: string; children: ComponentChildren }) {
  const id = useId();
  const control = props.children;
  if (!isValidElement(control)) {
    return (
      <label class="field">
        <span>{props.label}</span>
        {control}
      </label>
    );
  }
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {cloneElement(control, { id })}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

/** Options whose labels are their values, or made from them. */
export const optionsOf = (values: readonly string[], label: (value: string) => string = (value) => value): Option[] =>
  values.map((value) => ({ value, label: label(value) }));

/** A labelled select of `options`; with `none`, a first option of value '' that stands for no choice. */
export function Choice(props: { label: string; value: string; options: Option[]; none?: string; onChange: (value: string) => void }) {
  return (
    <Field label={props.label}>
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.none !== undefined && <option value="">{props.none}</option>}
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * A list page's body: the error, "Loading…", the note for an empty list, or the table with its
 * caption, a header per column and, when the viewer may act, an actions column named for screen
 * readers. `rows` is undefined until the list has loaded.
 */
export function ListTable<T extends { id: string }>(props: {
  rows: T[] | undefined;
  error?: string;
  empty: ComponentChildren;
  caption: ComponentChildren;
  columns: string[];
  withActions: boolean;
  /** Announce changes to screen readers: for a list that updates by itself. */
  live?: boolean;
  cells: (row: T) => ComponentChildren;
}) {
  const { rows } = props;
  return (
    <>
      <ErrorNote error={props.error} />
      {!rows && !props.error && <Loading />}
      {rows && rows.length === 0 && <Empty>{props.empty}</Empty>}
      {rows && rows.length > 0 && (
        <ScrollRegion label={props.caption}>
        <table aria-live={props.live ? 'polite' : undefined}>
          <caption>{props.caption}</caption>
          <TableHead columns={props.columns} withActions={props.withActions} />
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>{props.cells(row)}</tr>
            ))}
          </tbody>
        </table>
        </ScrollRegion>
      )}
    </>
  );
}

/** A table's header row: a header per column and, when the viewer may act, an actions column named for screen readers. */
export function TableHead(props: { columns: string[]; withActions: boolean }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {props.withActions && (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** A wide table scrolls inside itself on a narrow screen, never the page; keyboard users can scroll it too. */
export function ScrollRegion(props: { label: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={typeof props.label === 'string' ? props.label : undefined}>
      {props.children}
    </div>
  );
}
