/**
 * The built-in model of the NLP benchmark: a shop and café assistant with ten intents in English
 * and Spanish, ten example phrases per intent and language, and phrases the model never saw (two
 * per intent and language) that the load sends, each with the intent it means.
 */

interface Intent {
  id: string;
  en: string[];
  es: string[];
  /** Not in the training data. */
  heldOut: { en: string[]; es: string[] };
}

const INTENTS: Intent[] = [
  {
    id: 'greeting',
    en: ['hello', 'hi', 'hi there', 'hey', 'good morning', 'good afternoon', 'good evening', 'hello, how are you', 'hey, anyone there?', 'greetings'],
    es: ['hola', 'buenos días', 'buenas tardes', 'buenas noches', 'hola, qué tal', 'qué tal', 'hola, cómo estás', 'buenas', 'hola, hay alguien', 'saludos'],
    heldOut: { en: ['hi, good morning to you', 'hello there, how is it going'], es: ['hola buenos días', 'muy buenas, qué tal todo'] },
  },
  {
    id: 'goodbye',
    en: [
      'bye',
      'goodbye',
      'see you later',
      'see you soon',
      'have a nice day',
      'talk to you later',
      'that is all, bye',
      'catch you later',
      'good night',
      'farewell',
    ],
    es: [
      'adiós',
      'hasta luego',
      'hasta pronto',
      'nos vemos',
      'que tengas un buen día',
      'hablamos luego',
      'eso es todo, adiós',
      'chao',
      'hasta mañana',
      'me despido',
    ],
    heldOut: { en: ['ok bye, see you tomorrow', 'goodbye and have a good one'], es: ['vale, hasta mañana', 'adiós y buen día'] },
  },
  {
    id: 'thanks',
    en: [
      'thanks',
      'thank you',
      'thank you very much',
      'thanks a lot',
      'many thanks',
      'I appreciate it',
      'thanks for your help',
      'great, thank you',
      'cheers',
      'thank you so much',
    ],
    es: [
      'gracias',
      'muchas gracias',
      'mil gracias',
      'te lo agradezco',
      'gracias por tu ayuda',
      'perfecto, gracias',
      'muy amable',
      'se agradece',
      'gracias de verdad',
      'muchísimas gracias',
    ],
    heldOut: { en: ['thanks so much for helping me', 'really appreciate your help'], es: ['gracias por la ayuda, muy amable', 'os lo agradezco mucho'] },
  },
  {
    id: 'order_status',
    en: [
      'where is my order',
      'track my order',
      'has my order shipped',
      'when will my order arrive',
      'order status',
      'my package has not arrived',
      'where is my parcel',
      'is my delivery on its way',
      'tracking number for my order',
      'how long until my order gets here',
    ],
    es: [
      'dónde está mi pedido',
      'seguimiento de mi pedido',
      'ha salido mi pedido',
      'cuándo llega mi pedido',
      'estado del pedido',
      'mi paquete no ha llegado',
      'dónde está mi paquete',
      'mi envío está en camino',
      'número de seguimiento del pedido',
      'cuánto tarda en llegar mi pedido',
    ],
    heldOut: {
      en: ['my order still has not arrived, where is it', 'can you track my package please'],
      es: ['todavía no me ha llegado el pedido', 'quiero saber dónde está mi envío'],
    },
  },
  {
    id: 'cancel_order',
    en: [
      'cancel my order',
      'I want to cancel my order',
      'please cancel the order',
      'how do I cancel an order',
      'stop my order',
      'I changed my mind, cancel it',
      'cancel the purchase',
      'I no longer want my order',
      'can I cancel my order',
      'undo my order',
    ],
    es: [
      'cancelar mi pedido',
      'quiero cancelar mi pedido',
      'por favor cancela el pedido',
      'cómo cancelo un pedido',
      'anular mi pedido',
      'he cambiado de idea, cancélalo',
      'cancelar la compra',
      'ya no quiero mi pedido',
      'puedo cancelar el pedido',
      'anula la compra',
    ],
    heldOut: {
      en: ['please cancel my last order', 'I would like to cancel the purchase I made'],
      es: ['necesito cancelar mi último pedido', 'quiero anular la compra que hice'],
    },
  },
  {
    id: 'opening_hours',
    en: [
      'what time do you open',
      'when do you close',
      'opening hours',
      'are you open today',
      'are you open on sunday',
      'what are your hours',
      'until what time are you open',
      'are you open now',
      'what time do you close tonight',
      'business hours',
    ],
    es: [
      'a qué hora abrís',
      'a qué hora cerráis',
      'horario de apertura',
      'está abierto hoy',
      'abrís el domingo',
      'cuál es vuestro horario',
      'hasta qué hora está abierto',
      'está abierto ahora',
      'a qué hora cierran esta noche',
      'horario comercial',
    ],
    heldOut: {
      en: ['what time do you open on saturday', 'are you still open at this hour'],
      es: ['a qué hora abren el sábado', 'seguís abiertos a estas horas'],
    },
  },
  {
    id: 'book_table',
    en: [
      'book a table',
      'I want to make a reservation',
      'reserve a table for two',
      'can I book a table for tonight',
      'table for four at eight',
      'do you take reservations',
      'I would like to reserve a table',
      'booking for tomorrow evening',
      'reserve for 6 people',
      'make a booking',
    ],
    es: [
      'reservar una mesa',
      'quiero hacer una reserva',
      'mesa para dos',
      'puedo reservar mesa para esta noche',
      'mesa para cuatro a las ocho',
      'aceptáis reservas',
      'me gustaría reservar una mesa',
      'reserva para mañana por la noche',
      'reservar para seis personas',
      'hacer una reserva',
    ],
    heldOut: {
      en: ['could I reserve a table for three tomorrow', 'we want to book a table for dinner'],
      es: ['quisiera reservar mesa para tres mañana', 'queremos reservar una mesa para cenar'],
    },
  },
  {
    id: 'menu',
    en: [
      'can I see the menu',
      'what is on the menu',
      'do you have vegetarian options',
      'what dishes do you have',
      'show me the menu',
      'what do you serve',
      'do you have gluten free food',
      'what drinks do you have',
      'menu please',
      "what are today's specials",
    ],
    es: [
      'puedo ver la carta',
      'qué hay en el menú',
      'tenéis opciones vegetarianas',
      'qué platos tenéis',
      'enséñame la carta',
      'qué servís',
      'tenéis comida sin gluten',
      'qué bebidas tenéis',
      'la carta por favor',
      'cuál es el menú del día',
    ],
    heldOut: {
      en: ['do you have any vegan dishes on the menu', 'send me the menu please'],
      es: ['tenéis platos veganos en la carta', 'mándame el menú por favor'],
    },
  },
  {
    id: 'payment_methods',
    en: [
      'can I pay by card',
      'do you accept credit cards',
      'payment methods',
      'can I pay cash',
      'can I pay with my phone',
      'how can I pay',
      'do you accept debit cards',
      'is contactless payment possible',
      'can I pay by bank transfer',
      'what payment options do you have',
    ],
    es: [
      'puedo pagar con tarjeta',
      'aceptáis tarjetas de crédito',
      'formas de pago',
      'puedo pagar en efectivo',
      'puedo pagar con el móvil',
      'cómo puedo pagar',
      'aceptáis tarjeta de débito',
      'se puede pagar sin contacto',
      'puedo pagar por transferencia',
      'qué métodos de pago tenéis',
    ],
    heldOut: {
      en: ['is it possible to pay with a credit card', 'which ways of paying do you accept'],
      es: ['se puede pagar con tarjeta de crédito', 'qué formas de pago aceptáis'],
    },
  },
  {
    id: 'complaint',
    en: [
      'I want to make a complaint',
      'the food was cold',
      'the service was terrible',
      'I am very unhappy',
      'my order arrived damaged',
      'this is unacceptable',
      'I want to speak to a manager',
      'the product is broken',
      'very bad experience',
      'I want a refund',
    ],
    es: [
      'quiero poner una queja',
      'la comida estaba fría',
      'el servicio fue terrible',
      'estoy muy descontento',
      'mi pedido llegó dañado',
      'esto es inaceptable',
      'quiero hablar con el encargado',
      'el producto está roto',
      'muy mala experiencia',
      'quiero un reembolso',
    ],
    heldOut: {
      en: ['the coffee was cold and the staff were rude', 'I am not happy with the service at all'],
      es: ['el café estaba frío y el camarero fue grosero', 'no estoy nada contento con el servicio'],
    },
  },
];

/** The body of `PUT /v1/channels/{id}/nlp` for the benchmark's built-in integration. */
export const TRAINING = {
  kind: 'builtin',
  languages: ['en', 'es'],
  intents: INTENTS.map((i) => ({ id: i.id, utterances: { en: i.en, es: i.es } })),
} as const;

export interface HeldOutPhrase {
  text: string;
  language: 'en' | 'es';
  intent: string;
}

/** The phrases the load sends, in both languages. */
export const HELD_OUT: readonly HeldOutPhrase[] = INTENTS.flatMap((i) => [
  ...i.heldOut.en.map((text) => ({ text, language: 'en' as const, intent: i.id })),
  ...i.heldOut.es.map((text) => ({ text, language: 'es' as const, intent: i.id })),
]);

/** Example phrases of the model, for its description. */
export const MODEL_SIZE = {
  intents: INTENTS.length,
  languages: TRAINING.languages.length,
  utterances: INTENTS.reduce((n, i) => n + i.en.length + i.es.length, 0),
  heldOut: HELD_OUT.length,
};
