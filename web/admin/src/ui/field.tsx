// Form fields: a visible label, optional help text and the error text the server gave for this
// field (a 422 `field`), wired together with React Aria so screen readers announce them.
import type { ReactNode } from 'react';
import {
  Checkbox,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField as AriaTextField,
  Button as AriaButton,
  type Key,
  type TextFieldProps as AriaTextFieldProps,
} from 'react-aria-components';

export interface TextFieldProps extends Omit<AriaTextFieldProps, 'children' | 'isInvalid'> {
  label: string;
  description?: ReactNode;
  /** Error text to show (from the server, or a check of the form). */
  error?: string | undefined;
  multiline?: boolean;
  rows?: number;
  placeholder?: string;
}

export function TextField({ label, description, error, multiline, rows, placeholder, className, ...props }: TextFieldProps) {
  return (
    <AriaTextField
      {...props}
      className={['field', typeof className === 'string' ? className : ''].join(' ')}
      isInvalid={Boolean(error)}
      validationBehavior="aria"
    >
      <Label className="field-label">{label}</Label>
      {multiline ? <TextArea className="input" rows={rows ?? 4} placeholder={placeholder} /> : <Input className="input" placeholder={placeholder} />}
      {description ? (
        <Text slot="description" className="field-description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error}</FieldError>
    </AriaTextField>
  );
}

export interface SelectOption {
  id: string;
  label: string;
}

export interface SelectFieldProps {
  label: string;
  options: SelectOption[];
  value: string | null;
  onChange: (value: string) => void;
  description?: ReactNode;
  error?: string | undefined;
  isRequired?: boolean;
  isDisabled?: boolean;
  name?: string;
}

export function SelectField({ label, options, value, onChange, description, error, isRequired, isDisabled, name }: SelectFieldProps) {
  return (
    <Select
      className="field"
      selectedKey={value}
      onSelectionChange={(key: Key | null) => key !== null && onChange(String(key))}
      isInvalid={Boolean(error)}
      isRequired={isRequired}
      isDisabled={isDisabled}
      validationBehavior="aria"
      name={name}
    >
      <Label className="field-label">{label}</Label>
      <AriaButton className="input select-button">
        <SelectValue />
        <span aria-hidden="true" className="select-chevron">
          ▾
        </span>
      </AriaButton>
      {description ? (
        <Text slot="description" className="field-description">
          {description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error}</FieldError>
      <Popover className="popover">
        <ListBox className="listbox">
          {options.map((option) => (
            <ListBoxItem key={option.id} id={option.id} className="listbox-item" textValue={option.label}>
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

export interface CheckboxFieldProps {
  label: string;
  isSelected: boolean;
  onChange: (value: boolean) => void;
  description?: ReactNode;
  isDisabled?: boolean;
}

export function CheckboxField({ label, isSelected, onChange, description, isDisabled }: CheckboxFieldProps) {
  return (
    <div className="field field-checkbox">
      <Checkbox className="checkbox" isSelected={isSelected} onChange={onChange} isDisabled={isDisabled}>
        <span className="checkbox-box" aria-hidden="true">
          {isSelected ? '✓' : ''}
        </span>
        {label}
      </Checkbox>
      {description ? <p className="field-description">{description}</p> : null}
    </div>
  );
}
