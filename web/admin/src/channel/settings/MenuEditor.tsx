import { Button, SelectField, TextField } from '../../ui';
import {
  fieldOf,
  indentItem,
  moveItem,
  newItem,
  newKey,
  outdentItem,
  removeItem,
  updateItem,
  updateList,
  type EditItem,
  type EditLocale,
  type ItemPath,
  type ItemType,
} from './menu-model';
import { MENU_DEPTH_MAX, MENU_ITEMS_MAX, MENU_TITLE_MAX } from './menu-rules';

/**
 * The persistent menu: one menu per locale, items that open a URL, send a postback, or open a
 * submenu (nested up to three levels, at most three items per menu). Items move up and down,
 * into the submenu above them and out of their submenu; rule problems show as the user types.
 */
interface Props {
  value: EditLocale[];
  onChange: (next: EditLocale[]) => void;
  problems: Record<string, string>;
}

const TYPE_OPTIONS: Array<{ id: ItemType; label: string }> = [
  { id: 'postback', label: 'Postback (sends its payload to the webhook)' },
  { id: 'url', label: 'Open a URL' },
  { id: 'menu', label: 'Submenu' },
];

const labelOf = (path: ItemPath) => path.items.map((i) => i + 1).join('.');

export function MenuEditor({ value, onChange, problems }: Props) {
  return (
    <fieldset className="ch-fieldset">
      <legend>Persistent menu</legend>
      <p className="ch-hint">
        One menu per locale; a default one is required, and the get started button must be set too. Each menu holds at most {MENU_ITEMS_MAX} items; submenus
        nest at most {MENU_DEPTH_MAX} levels deep; titles at most {MENU_TITLE_MAX} characters.
      </p>
      {problems.menu && (
        <p className="field-error" role="alert" data-field="menu">
          {problems.menu}
        </p>
      )}
      {value.map((entry, li) => (
        <div key={entry.key} className="ch-locale" role="group" aria-label={`Menu for locale ${entry.locale || '(unnamed)'}`}>
          <div className="ch-row">
            <TextField
              label="Locale"
              value={entry.locale}
              onChange={(locale) => onChange(value.map((l, i) => (i === li ? { ...l, locale } : l)))}
              error={problems[`menu[${li}].locale`]}
              description="default, or a locale such as en_US"
            />
            <Button
              variant="quiet"
              onPress={() => onChange(value.filter((_, i) => i !== li))}
              aria-label={`Remove menu for ${entry.locale || 'unnamed locale'}`}
            >
              Remove menu
            </Button>
          </div>
          <ItemList items={entry.items} trail={[]} locale={li} depth={1} value={value} onChange={onChange} problems={problems} />
        </div>
      ))}
      <Button onPress={() => onChange([...value, { key: newKey(), locale: value.some((l) => l.locale === 'default') ? '' : 'default', items: [newItem()] }])}>
        Add a locale menu
      </Button>
    </fieldset>
  );
}

interface ListProps extends Props {
  items: EditItem[];
  trail: number[];
  locale: number;
  depth: number;
}

function ItemList({ items, trail, locale, depth, value, onChange, problems }: ListProps) {
  const listField = trail.length === 0 ? `menu[${locale}].items` : `${fieldOf({ locale, items: trail })}.items`;
  const full = items.length >= MENU_ITEMS_MAX;
  return (
    <div className="ch-menu-list">
      {problems[listField] && (
        <p className="field-error" role="alert">
          {problems[listField]}
        </p>
      )}
      <ol className="ch-menu-items">
        {items.map((item, i) => (
          <li key={item.key}>
            <ItemEditor
              item={item}
              path={{ locale, items: [...trail, i] }}
              siblings={items}
              depth={depth}
              value={value}
              onChange={onChange}
              problems={problems}
            />
          </li>
        ))}
      </ol>
      <div className="ch-row">
        <Button
          isDisabled={full}
          onPress={() => onChange(updateList(value, { locale, items: [...trail, 0] }, trail.length, (list) => [...list, newItem()]))}
          aria-label={
            trail.length === 0 ? `Add item to the ${value[locale]?.locale || 'unnamed'} menu` : `Add item to submenu ${trail.map((i) => i + 1).join('.')}`
          }
        >
          {trail.length === 0 ? 'Add item' : 'Add item to submenu'}
        </Button>
        <span className="ch-muted">
          {items.length} of {MENU_ITEMS_MAX} items{full ? ': this menu is full' : ''}
        </span>
      </div>
    </div>
  );
}

function ItemEditor({
  item,
  path,
  siblings,
  depth,
  value,
  onChange,
  problems,
}: Omit<ListProps, 'items' | 'trail' | 'locale'> & { item: EditItem; path: ItemPath; siblings: EditItem[] }) {
  const field = fieldOf(path);
  const index = path.items[path.items.length - 1] ?? 0;
  const name = labelOf(path);
  const set = (patch: Partial<EditItem>) => onChange(updateItem(value, path, (it) => ({ ...it, ...patch })));
  const above = siblings[index - 1];
  const canIndent =
    above?.type === 'menu' && above.items.length < MENU_ITEMS_MAX && depth < MENU_DEPTH_MAX && (item.type !== 'menu' || depth + 1 < MENU_DEPTH_MAX);
  const typeOptions = depth >= MENU_DEPTH_MAX ? TYPE_OPTIONS.filter((o) => o.id !== 'menu') : TYPE_OPTIONS;
  return (
    <fieldset className="ch-menu-item">
      <legend>Item {name}</legend>
      <div className="ch-row" data-testid={`menu-item-${path.locale}-${name}`}>
        <SelectField
          label="Kind"
          options={typeOptions}
          value={item.type}
          onChange={(type) => set({ type: type as ItemType, items: type === 'menu' && item.items.length === 0 ? [newItem()] : item.items })}
          error={problems[`${field}.type`]}
          description={depth >= MENU_DEPTH_MAX ? `No submenu here: menus nest at most ${MENU_DEPTH_MAX} levels deep.` : undefined}
        />
        <TextField
          label="Title"
          value={item.title}
          onChange={(title) => set({ title })}
          error={problems[`${field}.title`]}
          description={`${item.title.length}/${MENU_TITLE_MAX} characters`}
        />
        {item.type !== 'menu' && (
          <TextField
            label={item.type === 'url' ? 'URL' : 'Payload'}
            value={item.payload}
            onChange={(payload) => set({ payload })}
            error={problems[`${field}.payload`]}
            type={item.type === 'url' ? 'url' : 'text'}
          />
        )}
      </div>
      <div className="ch-row ch-item-actions" role="group" aria-label={`Arrange item ${name}`}>
        <Button variant="quiet" isDisabled={index === 0} onPress={() => onChange(moveItem(value, path, -1))} aria-label={`Move item ${name} up`}>
          Up
        </Button>
        <Button
          variant="quiet"
          isDisabled={index === siblings.length - 1}
          onPress={() => onChange(moveItem(value, path, 1))}
          aria-label={`Move item ${name} down`}
        >
          Down
        </Button>
        <Button
          variant="quiet"
          isDisabled={!canIndent}
          onPress={() => onChange(indentItem(value, path))}
          aria-label={`Nest item ${name} into the submenu above`}
        >
          Nest
        </Button>
        <Button
          variant="quiet"
          isDisabled={path.items.length < 2}
          onPress={() => onChange(outdentItem(value, path))}
          aria-label={`Unnest item ${name} from its submenu`}
        >
          Unnest
        </Button>
        <Button variant="quiet" onPress={() => onChange(removeItem(value, path))} aria-label={`Remove item ${name}`}>
          Remove
        </Button>
      </div>
      {item.type === 'menu' && (
        <ItemList items={item.items} trail={path.items} locale={path.locale} depth={depth + 1} value={value} onChange={onChange} problems={problems} />
      )}
    </fieldset>
  );
}
