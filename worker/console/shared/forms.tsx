/** @jsxImportSource hono/jsx */
/** Form controls shared by the auth and console pages. */

export type FieldErrors = Record<string, string>;

/** A labelled input or textarea with its hint and error, wired up with aria attributes. */
export function Field(props: {
  name: string;
  label: string;
  value?: string | number | null;
  type?: string;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
  placeholder?: string;
  maxlength?: number;
  minlength?: number;
  autocomplete?: string;
  /** The id to use; by default derived from the name. */
  id?: string;
  /** The language and direction of what is typed (a visitor's language's copy), when not the page's. */
  lang?: string;
  dir?: 'ltr' | 'rtl';
}) {
  const id = props.id ?? `f-${props.name.replace(/[^a-z0-9]+/gi, '-')}`;
  const error = props.errors?.[props.name];
  const describedBy =
    [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: props.name,
    required: props.required,
    placeholder: props.placeholder,
    maxlength: props.maxlength,
    minlength: props.minlength,
    autocomplete: props.autocomplete,
    lang: props.lang,
    dir: props.dir,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': describedBy,
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={3}>
          {props.value ?? ''}
        </textarea>
      ) : (
        <input
          {...common}
          type={props.type ?? 'text'}
          value={props.value === null || props.value === undefined ? '' : String(props.value)}
        />
      )}
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled select. */
export function Select(props: { name: string; label: string; value: string; options: [string, string][] }) {
  const id = `f-${props.name.replace(/[^a-z0-9]+/gi, '-')}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A group of choices in a fieldset: radio buttons (one) or checkboxes (several), each with a description. */
export function ChoiceGroup(props: {
  name: string;
  legend: string;
  type: 'radio' | 'checkbox';
  options: { value: string; label: string; description?: string }[];
  checked: string[];
  errors?: FieldErrors;
  hint?: string;
}) {
  const error = props.errors?.[props.name];
  const id = `f-${props.name.replace(/[^a-z0-9]+/gi, '-')}`;
  return (
    <fieldset
      class="choice"
      aria-describedby={
        [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
      }
    >
      <legend>{props.legend}</legend>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.options.map((option) => (
        <label class="option">
          <input
            type={props.type}
            name={props.name}
            value={option.value}
            checked={props.checked.includes(option.value)}
          />
          <span>
            <strong>{option.label}</strong>
            {option.description ? <span class="muted"> · {option.description}</span> : null}
          </span>
        </label>
      ))}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
