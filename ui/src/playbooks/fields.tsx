// Form fields bound to one JSON pointer each. A field shows its label, a
// line of helper text, and the findings for its pointer right under it.
// Fields never accept a value of the wrong type: invalid text stays in the
// field with a message, and the document keeps its last valid value.
import { memo, useEffect, useId, useState, type ReactNode } from "react";
import { BUILTIN_POLICIES } from "../generated/builtinPolicies";
import { Hints } from "../validation/hints";

// Every field is memoised: on a keystroke only the field whose value
// changed renders again, provided its callbacks stay the same objects from
// render to render (the role editor keeps them stable; see RoleEditor.tsx).
type Common = { label: string; help?: ReactNode; pointer: string };

function Field({ label, help, pointer, id, children, error }: Common & { id: string; children: ReactNode; error?: string | null }) {
  return (
    <div className="field" data-field={pointer}>
      <label htmlFor={id}>{label}</label>
      {children}
      {help && <p className="help">{help}</p>}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <Hints pointer={pointer} />
    </div>
  );
}

/** Longest text a single-line field takes; longer pastes are refused with a message. */
const MAX_LINE = 2000;
const MAX_TEXT = 100_000;

function TextFieldImpl(
  props: Common & {
    value: string;
    onChange: (v: string) => void;
    onBlur?: () => void;
    onFocus?: () => void;
    placeholder?: string;
    multiline?: boolean;
    /** Completions offered while typing (single-line fields). */
    suggestions?: string[];
  },
) {
  const id = useId();
  const listId = `${id}-suggestions`;
  const [error, setError] = useState<string | null>(null);
  const limit = props.multiline ? MAX_TEXT : MAX_LINE;
  const change = (v: string) => {
    if (v.length > limit) {
      setError(`That is ${v.length.toLocaleString()} characters; this field takes at most ${limit.toLocaleString()}. The previous text is kept.`);
      return;
    }
    setError(null);
    props.onChange(props.multiline ? v : v.replace(/[\r\n]+/g, " "));
  };
  const common = {
    id,
    "data-pointer": props.pointer,
    value: props.value,
    placeholder: props.placeholder,
    onBlur: props.onBlur,
    onFocus: props.onFocus,
  };
  return (
    <Field {...props} id={id} error={error}>
      {props.multiline ? (
        <textarea {...common} rows={3} onChange={(e) => change(e.target.value)} />
      ) : (
        <>
          <input type="text" {...common} list={props.suggestions ? listId : undefined} onChange={(e) => change(e.target.value)} />
          {props.suggestions && (
            <datalist id={listId}>
              {props.suggestions.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
          )}
        </>
      )}
    </Field>
  );
}

function NumberFieldImpl(
  props: Common & { value: number | undefined; onChange: (v: number | undefined) => void; min?: number; max?: number; placeholder?: string },
) {
  const id = useId();
  const [text, setText] = useState(props.value === undefined ? "" : String(props.value));
  const [error, setError] = useState<string | null>(null);
  // Undo, redo and Source edits change the value from outside; show it.
  useEffect(() => {
    setText(props.value === undefined ? "" : String(props.value));
    setError(null);
  }, [props.value]);
  const max = props.max ?? 1_000_000;
  const change = (v: string) => {
    setText(v);
    const trimmed = v.trim();
    if (trimmed === "") {
      setError(null);
      props.onChange(undefined);
    } else if (!/^\d+$/.test(trimmed) || Number(trimmed) > max || Number(trimmed) < (props.min ?? 0)) {
      setError(`Enter a whole number from ${props.min ?? 0} to ${max.toLocaleString()}; the last valid value is kept.`);
    } else {
      setError(null);
      props.onChange(Number(trimmed));
    }
  };
  return (
    <Field {...props} id={id} error={error}>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        data-pointer={props.pointer}
        value={text}
        placeholder={props.placeholder}
        aria-invalid={error ? true : undefined}
        onChange={(e) => change(e.target.value)}
      />
    </Field>
  );
}

function ToggleImpl(props: Common & { value: boolean; onChange: (v: boolean) => void }) {
  const id = useId();
  return (
    <div className="field field-toggle" data-field={props.pointer}>
      <label htmlFor={id}>
        <input id={id} type="checkbox" data-pointer={props.pointer} checked={props.value} onChange={(e) => props.onChange(e.target.checked)} />
        {props.label}
      </label>
      {props.help && <p className="help">{props.help}</p>}
      <Hints pointer={props.pointer} />
    </div>
  );
}

function SelectImpl<T extends string>(
  props: Common & { value: T | ""; options: { value: T | ""; label: string }[]; onChange: (v: T | "") => void },
) {
  const id = useId();
  return (
    <Field {...props} id={id}>
      <select id={id} data-pointer={props.pointer} value={props.value} onChange={(e) => props.onChange(e.target.value as T | "")}>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * A list of short strings edited as chips. Enter or comma adds; a paste with
 * several lines or commas adds each. Empty and duplicate items are refused
 * with a message, never silently.
 */
function ChipListImpl(
  props: Common & { values: string[] | undefined; onChange: (v: string[] | undefined) => void; suggestions?: string[]; placeholder?: string },
) {
  const id = useId();
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const values = props.values ?? [];
  const add = (raw: string) => {
    const items = raw
      .split(/[,\n\r]+/)
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (items.length === 0) {
      setError("Type a value first; empty entries are not added.");
      return;
    }
    if (items.length > 500) {
      setError(`That paste has ${items.length} entries; add at most 500 at once.`);
      return;
    }
    const tooLong = items.find((s) => s.length > 200);
    if (tooLong) {
      setError(`"${tooLong.slice(0, 40)}…" is longer than 200 characters; use a short name.`);
      return;
    }
    const next = [...values];
    const duplicates: string[] = [];
    for (const item of items) {
      if (next.includes(item)) duplicates.push(item);
      else next.push(item);
    }
    setError(duplicates.length ? `Already in the list: ${duplicates.join(", ")}` : null);
    setDraft("");
    if (next.length !== values.length) props.onChange(next);
  };
  const remove = (i: number) => {
    const next = values.filter((_, k) => k !== i);
    props.onChange(next);
    setError(null);
  };
  const listId = `${id}-suggestions`;
  return (
    <Field {...props} id={id} error={error}>
      <div className="chips" data-pointer={props.pointer} tabIndex={-1}>
        {values.map((v, i) => (
          <span className="chip" key={`${v}-${i}`} data-pointer={`${props.pointer}/${i}`} tabIndex={-1}>
            {v}
            <button type="button" aria-label={`Remove ${v}`} onClick={() => remove(i)}>
              ×
            </button>
          </span>
        ))}
        <input
          id={id}
          className="chip-input"
          type="text"
          list={props.suggestions ? listId : undefined}
          value={draft}
          placeholder={props.placeholder ?? "add, then Enter"}
          onChange={(e) => {
            const v = e.target.value;
            if (/[,\n]/.test(v)) add(v);
            else setDraft(v);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add(draft);
            } else if (e.key === "Backspace" && draft === "" && values.length > 0) {
              remove(values.length - 1);
            }
          }}
          onBlur={() => draft.trim() && add(draft)}
        />
        {props.suggestions && (
          <datalist id={listId}>
            {props.suggestions.filter((s) => !values.includes(s)).map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        )}
      </div>
    </Field>
  );
}

/** A list of sentences edited as rows, one input per row. */
function RowListImpl(props: Common & { values: string[] | undefined; onChange: (v: string[] | undefined) => void; addLabel: string }) {
  const id = useId();
  const values = props.values ?? [];
  const set = (i: number, v: string) => props.onChange(values.map((x, k) => (k === i ? v.slice(0, MAX_LINE) : x)));
  return (
    <Field {...props} id={id}>
      <div className="rows" data-pointer={props.pointer} tabIndex={-1}>
        {values.map((v, i) => (
          <div className="row" key={i}>
            <input
              id={i === 0 ? id : undefined}
              type="text"
              data-pointer={`${props.pointer}/${i}`}
              value={v}
              onChange={(e) => set(i, e.target.value.replace(/[\r\n]+/g, " "))}
            />
            <button type="button" aria-label={`Remove row ${i + 1}`} onClick={() => props.onChange(values.filter((_, k) => k !== i))}>
              ×
            </button>
          </div>
        ))}
        <button type="button" id={values.length === 0 ? id : undefined} className="link" onClick={() => props.onChange([...values, ""])}>
          + {props.addLabel}
        </button>
      </div>
    </Field>
  );
}

/** Handoff targets, picked from the roles that exist. */
function RolePickerImpl(props: Common & { values: string[] | undefined; roles: string[]; onChange: (v: string[] | undefined) => void }) {
  const id = useId();
  const values = props.values ?? [];
  const available = props.roles.filter((r) => !values.includes(r));
  return (
    <Field {...props} id={id}>
      <div className="chips" data-pointer={props.pointer} tabIndex={-1}>
        {values.map((v, i) => (
          <span className={`chip ${props.roles.includes(v) ? "" : "chip-missing"}`} key={`${v}-${i}`} data-pointer={`${props.pointer}/${i}`}>
            {v}
            <button type="button" aria-label={`Remove handoff to ${v}`} onClick={() => props.onChange(values.filter((_, k) => k !== i))}>
              ×
            </button>
          </span>
        ))}
        <select
          id={id}
          value=""
          aria-label={`${props.label}: add a role`}
          onChange={(e) => e.target.value && props.onChange([...values, e.target.value])}
        >
          <option value="">{available.length ? "+ hand off to…" : "no other roles"}</option>
          {available.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
    </Field>
  );
}

const POLICY_KEYS = BUILTIN_POLICIES.map((p) => p.key);

/**
 * A gate: a policy key or a CEL expression. Completes the built-in policy
 * keys (from the core's table, generated) and says what the one typed
 * means, so `review_passed` is never a mystery.
 */
function GateFieldImpl(props: Common & { value: string; onChange: (v: string) => void; placeholder?: string }) {
  const builtin = BUILTIN_POLICIES.find((p) => p.key === props.value.trim());
  const help = (
    <>
      {props.help}
      {builtin && (
        <span className="policy-meaning" data-testid="policy-meaning">
          {" "}
          <code>{builtin.key}</code> is built in: {builtin.description}
          {builtin.expression ? (
            <>
              {" "}
              (<code>{builtin.expression}</code>)
            </>
          ) : (
            " A person decides."
          )}
        </span>
      )}{" "}
      <details className="policy-keys">
        <summary>Built-in policy keys</summary>
        <dl>
          {BUILTIN_POLICIES.map((p) => (
            <div key={p.key}>
              <dt>
                <code>{p.key}</code>
              </dt>
              <dd>
                {p.description} {p.expression ? <code>{p.expression}</code> : "(manual)"}
              </dd>
            </div>
          ))}
        </dl>
      </details>
    </>
  );
  return <TextField {...props} help={help} suggestions={POLICY_KEYS} />;
}

export const TextField = memo(TextFieldImpl);
export const NumberField = memo(NumberFieldImpl);
export const Toggle = memo(ToggleImpl);
export const ChipList = memo(ChipListImpl);
export const RowList = memo(RowListImpl);
export const RolePicker = memo(RolePickerImpl);
export const GateField = memo(GateFieldImpl);
/** Memoised like the others; the cast keeps the option type generic. */
export const Select = memo(SelectImpl) as typeof SelectImpl;
