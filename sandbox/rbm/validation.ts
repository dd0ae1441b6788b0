import { asArray, charLength, isRecord, optString, type JsonRecord } from '../shared/values.js';
import { invalidArgument } from './errors.js';

// agentMessages body rules (limits from the fact sheet) and the device features a message needs.

const LIMITS = { text: 3072, suggestions: 11, suggestionText: 25, postbackData: 2048, cardTitle: 200, cardDescription: 2000, cardSuggestions: 4 };
const ACTIONS: Record<string, string> = {
  dialAction: 'ACTION_DIAL',
  viewLocationAction: 'ACTION_VIEW_LOCATION',
  createCalendarEventAction: 'ACTION_CREATE_CALENDAR_EVENT',
  openUrlAction: 'ACTION_OPEN_URL',
  shareLocationAction: 'ACTION_SHARE_LOCATION',
};

function validateSuggestions(raw: unknown, where: string, max: number, features: Set<string>): void {
  if (raw === undefined) return;
  const list = asArray(raw);
  if (!list) throw invalidArgument(`Invalid value at '${where}': must be a list.`);
  if (list.length > max) throw invalidArgument(`${where} must contain at most ${max} suggestions.`);
  list.forEach((s, i) => {
    const p = `${where}[${i}]`;
    if (!isRecord(s)) throw invalidArgument(`Invalid value at '${p}'.`);
    const item = isRecord(s.reply) ? s.reply : isRecord(s.action) ? s.action : undefined;
    if (!item) throw invalidArgument(`${p} must contain a reply or an action.`);
    const text = optString(item.text) ?? '';
    if (text === '' || charLength(text) > LIMITS.suggestionText) throw invalidArgument(`${p}.text must be 1-${LIMITS.suggestionText} characters.`);
    const postback = optString(item.postbackData) ?? '';
    if (postback === '' || charLength(postback) > LIMITS.postbackData) throw invalidArgument(`${p}.postbackData must be 1-${LIMITS.postbackData} characters.`);
    if (isRecord(s.action)) {
      const kinds = Object.keys(ACTIONS).filter((k) => s.action !== undefined && (s.action as JsonRecord)[k] !== undefined);
      if (kinds.length !== 1) throw invalidArgument(`${p}.action must contain exactly one action type.`);
      const feature = ACTIONS[kinds[0] ?? ''];
      if (feature) features.add(feature);
    }
  });
}

function validateCardContent(raw: unknown, where: string, features: Set<string>): void {
  if (!isRecord(raw)) throw invalidArgument(`${where} is required.`);
  const title = optString(raw.title);
  const description = optString(raw.description);
  if (title === undefined && description === undefined && raw.media === undefined) throw invalidArgument(`${where} needs a title, description or media.`);
  if (title !== undefined && charLength(title) > LIMITS.cardTitle) throw invalidArgument(`${where}.title must be at most ${LIMITS.cardTitle} characters.`);
  if (description !== undefined && charLength(description) > LIMITS.cardDescription) {
    throw invalidArgument(`${where}.description must be at most ${LIMITS.cardDescription} characters.`);
  }
  validateSuggestions(raw.suggestions, `${where}.suggestions`, LIMITS.cardSuggestions, features);
}

/** Validates the body and returns the device features it needs. */
export function validateAgentMessage(body: JsonRecord): Set<string> {
  const features = new Set<string>();
  if (body.ttl !== undefined && body.expireTime !== undefined) throw invalidArgument('Only one of ttl and expireTime may be set.');
  if (body.ttl !== undefined && !/^\d+(\.\d+)?s$/.test(String(body.ttl))) throw invalidArgument("Invalid value at 'agent_message.ttl' (Duration).");
  const cm = body.contentMessage;
  if (!isRecord(cm)) throw invalidArgument('agent_message.content_message is required.');
  const kinds = ['text', 'richCard', 'uploadedRbmFile', 'contentInfo'].filter((k) => cm[k] !== undefined);
  if (kinds.length !== 1) throw invalidArgument('content_message must contain exactly one of text, richCard, uploadedRbmFile, contentInfo.');
  if (cm.text !== undefined) {
    const text = optString(cm.text) ?? '';
    if (text === '' || charLength(text) > LIMITS.text) throw invalidArgument(`content_message.text must be 1-${LIMITS.text} characters.`);
  }
  if (cm.contentInfo !== undefined) {
    const info = isRecord(cm.contentInfo) ? cm.contentInfo : {};
    if (!optString(info.fileUrl)) throw invalidArgument('content_message.content_info.file_url is required.');
  }
  if (cm.uploadedRbmFile !== undefined) {
    const f = isRecord(cm.uploadedRbmFile) ? cm.uploadedRbmFile : {};
    if (!optString(f.fileName)) throw invalidArgument('content_message.uploaded_rbm_file.file_name is required.');
  }
  if (cm.richCard !== undefined) {
    const rc = isRecord(cm.richCard) ? cm.richCard : {};
    if (isRecord(rc.standaloneCard)) {
      features.add('RICHCARD_STANDALONE');
      validateCardContent(rc.standaloneCard.cardContent, 'rich_card.standalone_card.card_content', features);
    } else if (isRecord(rc.carouselCard)) {
      features.add('RICHCARD_CAROUSEL');
      const cards = asArray(rc.carouselCard.cardContents) ?? [];
      if (cards.length < 2 || cards.length > 10) throw invalidArgument('carousel_card.card_contents must contain 2 to 10 cards.');
      cards.forEach((c, i) => validateCardContent(c, `rich_card.carousel_card.card_contents[${i}]`, features));
    } else {
      throw invalidArgument('rich_card must contain a standalone_card or a carousel_card.');
    }
  }
  validateSuggestions(cm.suggestions, 'content_message.suggestions', LIMITS.suggestions, features);
  return features;
}
