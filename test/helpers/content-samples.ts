/** One valid request body of each content type (contract.md §3), for capability checks. */
export const CONTENT_SAMPLES: Record<string, unknown> = {
  text: { type: 'text', payload: 'Hi' },
  image: { type: 'image', payload: { url: 'https://e.com/a.png' } },
  video: { type: 'video', payload: { url: 'https://e.com/a.mp4' } },
  audio: { type: 'audio', payload: { url: 'https://e.com/a.mp3' } },
  file: { type: 'file', payload: { url: 'https://e.com/a.pdf' } },
  location: { type: 'location', payload: { latitude: 50, longitude: 14 } },
  structure: { type: 'structure', payload: { title: 'Card' } },
  receipt: { type: 'receipt', payload: { recipient_name: 'J', order_number: '1', currency: 'EUR', payment_method: 'card', summary: { total_cost: 1 } } },
};
