// Shared pieces: data loading, labelled fields that show their userErrors, pagers, small views.
import type { ComponentChildren, JSX } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";

import { AuthError, type UserError } from "./api";
import { Link, navigationCount } from "./router";

// ---------------------------------------------------------------- loading

export type Loaded<T> = {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
};

/** Runs `load` when `deps` change; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let isCurrent = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => isCurrent && setState({ data, error: null, loading: false }),
      (error: unknown) => {
        // A refused key signs the whole console out; nothing to show here.
        if (isCurrent && !(error instanceof AuthError)) {
          setState((previous) => ({ ...previous, error: messageOf(error), loading: false }));
        }
      },
    );
    return () => {
      isCurrent = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A mutation's state: busy, its userErrors, a failure that is not a userError. */
export function useMutation() {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<UserError[]>([]);
  const run = useCallback(async <T,>(action: () => Promise<{ userErrors: UserError[] } & T>) => {
    setBusy(true);
    setErrors([]);
    try {
      const payload = await action();
      setErrors(payload.userErrors);
      return payload.userErrors.length === 0 ? payload : null;
    } catch (error) {
      if (!(error instanceof AuthError)) setErrors([{ field: null, code: "ERROR", message: messageOf(error) }]);
      return null;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, errors, setErrors, run };
}

// ---------------------------------------------------------------- user errors beside fields

/** The errors whose field path ends with `name` (["input", "name"] matches "name"). */
export function errorsFor(errors: UserError[], name: string): UserError[] {
  const path = name.split(".");
  return errors.filter((error) => {
    const field = error.field ?? [];
    return field.length >= path.length && path.every((part, index) => field[field.length - path.length + index] === part);
  });
}

/** Errors no field of the form claims: shown above the submit button. */
export function FormErrors({ errors, fields }: { errors: UserError[]; fields: string[] }) {
  const unplaced = errors.filter((error) => fields.every((name) => !errorsFor([error], name).length));
  if (!unplaced.length) return null;
  return (
    <div class="form-errors" role="alert">
      {unplaced.map((error, index) => (
        <p key={index}>
          {error.message} <span class="code">{error.code}</span>
        </p>
      ))}
    </div>
  );
}

/**
 * A form that creates or edits one thing: its fields, then the userErrors none of `fields`
 * shows (and `notice`, if any), then the submit button and Cancel — a link when `cancel` is a
 * console path, a button running it otherwise.
 */
export function EditForm({
  label,
  wide = false,
  noValidate = false,
  onSubmit,
  mutation,
  fields,
  submitLabel,
  cancel,
  notice,
  children,
}: {
  label?: string;
  wide?: boolean;
  noValidate?: boolean;
  onSubmit: (event: Event) => void;
  mutation: { busy: boolean; errors: UserError[] };
  fields: string[];
  submitLabel: string;
  cancel: string | (() => void);
  notice?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <form class={wide ? "card form wide" : "card form"} onSubmit={onSubmit} aria-label={label} noValidate={noValidate}>
      {children}
      <FormErrors errors={mutation.errors} fields={fields} />
      {notice}
      <div class="buttons">
        <button type="submit" class="primary" disabled={mutation.busy}>
          {submitLabel}
        </button>
        {typeof cancel === "string" ? (
          <Link class="button" to={cancel}>
            Cancel
          </Link>
        ) : (
          <button type="button" onClick={cancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

type FieldProps = {
  label: string;
  name: string;
  errors?: UserError[];
  hint?: string;
  children: (props: { id: string; "aria-invalid": boolean; "aria-describedby": string | undefined }) => JSX.Element;
};

/** A labelled control with its hint and the userErrors that name it. */
export function Field({ label, name, errors = [], hint, children }: FieldProps) {
  const id = useId();
  const mine = errorsFor(errors, name);
  const described = [hint ? `${id}-hint` : "", mine.length ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={`field${mine.length ? " invalid" : ""}`}>
      <label for={id}>{label}</label>
      {children({ id, "aria-invalid": mine.length > 0, "aria-describedby": described || undefined })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {mine.length > 0 && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {mine.map((error) => error.message).join(" ")}
        </p>
      )}
    </div>
  );
}

type TextFieldProps = {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  errors?: UserError[];
  hint?: string;
  type?: string;
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
};

export function TextField({ label, name, value, onInput, errors, hint, type = "text", ...rest }: TextFieldProps) {
  return (
    <Field label={label} name={name} errors={errors} hint={hint}>
      {(props) => (
        <input
          {...props}
          {...rest}
          name={name}
          type={type}
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
      )}
    </Field>
  );
}

export function TextAreaField({
  label,
  name,
  value,
  onInput,
  errors,
  hint,
  rows = 6,
  mono = false,
}: Omit<TextFieldProps, "type"> & { rows?: number; mono?: boolean }) {
  return (
    <Field label={label} name={name} errors={errors} hint={hint}>
      {(props) => (
        <textarea
          {...props}
          class={mono ? "mono" : undefined}
          name={name}
          rows={rows}
          value={value}
          spellcheck={!mono}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
      )}
    </Field>
  );
}

export function SelectField<T extends string>({
  label,
  name,
  value,
  options,
  onChange,
  errors,
  hint,
}: {
  label: string;
  name: string;
  value: T;
  options: readonly (readonly [T, string])[];
  onChange: (value: T) => void;
  errors?: UserError[];
  hint?: string;
}) {
  return (
    <Field label={label} name={name} errors={errors} hint={hint}>
      {(props) => (
        // A value no option carries (e.g. "" before the choices load) shows the first option,
        // which is what the callers fall back to.
        <select
          {...props}
          name={name}
          value={options.some(([option]) => option === value) ? value : options[0]?.[0]}
          onChange={(event) => onChange(event.currentTarget.value as T)}
        >
          {options.map(([option, text]) => (
            <option key={option} value={option}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A group of checkboxes with a legend, e.g. the spaces a tool is bound to. */
export function CheckboxGroup({
  legend,
  options,
  selected,
  onChange,
  errors = [],
  name,
}: {
  legend: string;
  options: { value: string; label: string }[];
  selected: string[];
  onChange: (values: string[]) => void;
  errors?: UserError[];
  name: string;
}) {
  const mine = errorsFor(errors, name);
  return (
    <fieldset class="checkbox-group">
      <legend>{legend}</legend>
      {options.length === 0 && <p class="hint">Nothing to choose from.</p>}
      {options.map((option) => (
        <label key={option.value} class="check">
          <input
            type="checkbox"
            checked={selected.includes(option.value)}
            onChange={(event) =>
              onChange(
                event.currentTarget.checked
                  ? [...selected, option.value]
                  : selected.filter((value) => value !== option.value),
              )
            }
          />
          {option.label}
        </label>
      ))}
      {mine.length > 0 && (
        <p class="field-error" role="alert">
          {mine.map((error) => error.message).join(" ")}
        </p>
      )}
    </fieldset>
  );
}

// ---------------------------------------------------------------- JSON editing

/** Parses a JSON text field: the value, or a message saying where it is wrong. */
export function parseJson(text: string): { value: unknown; problem: null } | { value: null; problem: string } {
  if (!text.trim()) return { value: null, problem: null };
  try {
    return { value: JSON.parse(text) as unknown, problem: null };
  } catch (error) {
    return { value: null, problem: `Not valid JSON: ${messageOf(error)}` };
  }
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {value === null || value === undefined ? "—" : pretty(value)}
    </pre>
  );
}

// ---------------------------------------------------------------- page furniture

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // The page the console opened on keeps the browser's own focus order (skip link first).
    // Decided by whether the person has gone to another page, not by which title's effect ran
    // first: on a busy machine the first page's effect can still be pending when a keyboard
    // user follows a link, and the next page then took the "first page" turn, its title unfocused.
    if (navigationCount() === 0) return;
    // Another page: move focus to its title, so keyboard and screen-reader users start there.
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <header class="page-header">
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children && <div class="actions">{children}</div>}
    </header>
  );
}

export function LoadError({ error, retry }: { error: string | null; retry?: () => void }) {
  if (!error) return null;
  return (
    <div class="form-errors" role="alert">
      <p>{error}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** The loads of one page that failed, as one message (each distinct reason once: an outage that
 *  fails the list and the choices beside it is said once) with one "Try again" that loads again
 *  each of them that failed. */
export function LoadErrors({ loads }: { loads: readonly Loaded<unknown>[] }) {
  const failed = loads.filter((load) => load.error !== null);
  if (!failed.length) return null;
  const reasons = [...new Set(failed.map((load) => load.error))];
  return <LoadError error={reasons.join(" ")} retry={() => failed.forEach((load) => load.reload())} />;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice" role="status">
      {children}
    </div>
  );
}

export function Badge({ children, tone = "plain" }: { children: ComponentChildren; tone?: string }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

export function statusTone(status: string): string {
  if (status === "ACTIVE" || status === "SUCCESS" || status === "SUCCEEDED" || status === "PRODUCTION") return "good";
  if (status === "DISABLED" || status === "FAILED" || status === "MAX_STEPS") return "bad";
  if (status === "RUNNING" || status === "CANDIDATE" || status === "QUEUED") return "busy";
  if (status === "WAITING_APPROVAL" || status === "PENDING_APPROVAL" || status === "PENDING") return "busy";
  return "plain";
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

// ---------------------------------------------------------------- keyset pages

/** Forward keyset paging with a stack of cursors for "Previous". */
export function useCursorPages(resetKey: string) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  useEffect(() => setCursors([null]), [resetKey]);
  const after = cursors[cursors.length - 1];
  return {
    after,
    page: cursors.length,
    next: (endCursor: string | null) => endCursor && setCursors((stack) => [...stack, endCursor]),
    previous: () => setCursors((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)),
  };
}

/** A connection's page of `pageSize` and the buttons to its neighbours (`useCursorPages`). */
export function Pager({
  label,
  pages,
  pageSize,
  connection,
}: {
  label: string;
  pages: ReturnType<typeof useCursorPages>;
  pageSize: number;
  connection: { edges: readonly unknown[]; totalCount: number; pageInfo: { hasNextPage: boolean; endCursor?: string | null } };
}) {
  const { page, previous: onPrevious } = pages;
  const shown = connection.edges.length;
  const total = connection.totalCount;
  const hasNext = connection.pageInfo.hasNextPage;
  const onNext = () => pages.next(connection.pageInfo.endCursor ?? null);
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={onPrevious} disabled={page <= 1}>
        Previous page
      </button>
      <span aria-live="polite">
        {first}–{first + shown - (shown ? 1 : 0)} of {total.toLocaleString()}
      </span>
      <button type="button" onClick={onNext} disabled={!hasNext}>
        Next page
      </button>
    </nav>
  );
}
