/**
 * How wide the service's values are, as the tables and the lines of every command declare their columns (render/
 * table.ts and render/line.ts decide which columns to show from these and the terminal's width; a table of one page
 * then gives back what its rows leave room for). A value wider than declared (another service's longer ids) widens
 * its column.
 */

/** A delivery's id whole: the sandbox's, `dlv_` and 24 hex digits. */
export const DELIVERY_ID_WIDTH = 28;
/** A webhook's id whole: the sandbox's, `wh_` and 24 hex digits. */
export const WEBHOOK_ID_WIDTH = 27;
/** The catalog's longest event type, production_order.completed. */
export const EVENT_WIDTH = 26;
/** An event type cut between its words is no narrower than this, so that `production_…` and `product.…` differ. */
export const EVENT_MIN = 12;
/**
 * The widest status a table's column shows: `failed · no more retries` (fateWords); a retry due is said there without
 * its time of day, `failed · retry due`, as a stream's line says it on a narrow terminal. No narrower form: a state's
 * words are the same at every width.
 */
export const STATUS_WIDTH = 24;
/** The widest code: `no answer` (codeWords). */
export const CODE_WIDTH = 9;
/** A URL column keeps at least this much: an https scheme, a host of twenty-odd characters and `/…`. */
export const URL_MIN = 32;
