import { useId, type ComponentProps, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
}

function describedBy(hintId: string, errorId: string, props: FieldProps): string | undefined {
  const ids = [props.hint === undefined ? '' : hintId, props.error === undefined ? '' : errorId].filter(Boolean);
  return ids.length === 0 ? undefined : ids.join(' ');
}

function Parts(props: FieldProps & { id: string; hintId: string; errorId: string; children: ReactNode }) {
  return (
    <div className={props.error === undefined ? 'field' : 'field invalid'}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.hint === undefined ? null : <p className="hint" id={props.hintId}>{props.hint}</p>}
      {props.error === undefined ? null : <p className="field-error" id={props.errorId}>{props.error}</p>}
    </div>
  );
}

/** A labelled input with its hint and error tied to it for assistive technology (a `ref` reaches the input). */
export function TextField(props: FieldProps & ComponentProps<'input'>) {
  const { label, hint, error, ...input } = props;
  const id = useId();
  return (
    <Parts id={id} hintId={`${id}-hint`} errorId={`${id}-error`} label={label} hint={hint} error={error}>
      <input id={id} aria-invalid={error === undefined ? undefined : true} aria-describedby={describedBy(`${id}-hint`, `${id}-error`, props)} {...input} />
    </Parts>
  );
}

export function TextArea(props: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { label, hint, error, ...area } = props;
  const id = useId();
  return (
    <Parts id={id} hintId={`${id}-hint`} errorId={`${id}-error`} label={label} hint={hint} error={error}>
      <textarea id={id} aria-invalid={error === undefined ? undefined : true} aria-describedby={describedBy(`${id}-hint`, `${id}-error`, props)} {...area} />
    </Parts>
  );
}

export function SelectField(props: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const { label, hint, error, children, ...select } = props;
  const id = useId();
  return (
    <Parts id={id} hintId={`${id}-hint`} errorId={`${id}-error`} label={label} hint={hint} error={error}>
      <select id={id} aria-describedby={describedBy(`${id}-hint`, `${id}-error`, props)} {...select}>{children}</select>
    </Parts>
  );
}

/** A group of checkboxes with a legend. */
export function CheckboxGroup<T extends string>(props: {
  legend: string;
  options: readonly { value: T; label: ReactNode }[];
  value: readonly T[];
  onChange: (value: T[]) => void;
  hint?: ReactNode;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className="checkbox-group" aria-describedby={props.hint === undefined ? undefined : `${id}-hint`}>
      <legend>{props.legend}</legend>
      {props.hint === undefined ? null : <p className="hint" id={`${id}-hint`}>{props.hint}</p>}
      <div className="checkboxes">
        {props.options.map((option) => (
          <label key={option.value} className="checkbox">
            <input
              type="checkbox"
              checked={props.value.includes(option.value)}
              disabled={props.disabled}
              onChange={(event) => props.onChange(event.target.checked
                ? [...props.value, option.value]
                : props.value.filter((v) => v !== option.value))}
            />
            {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
