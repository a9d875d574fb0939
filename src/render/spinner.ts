import { lineHeld, type OutputStream } from './stream.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Answers quicker than this never show a spinner: it would only flicker. */
export const SPINNER_DELAY_MS = 150;

/**
 * Shows a spinner on `stream` while `work` runs, from SPINNER_DELAY_MS on,
 * and wipes it when the work ends. Only for terminals; the caller decides.
 * While a progress line holds the stream's line, the spinner does not draw
 * (nor wipe what the progress line drew).
 */
export async function withSpinner<T>(stream: OutputStream, label: string, work: () => Promise<T>): Promise<T> {
  let frame = 0;
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;
  const starter = setTimeout(() => {
    const draw = () => {
      // The progress line wipes the line as it draws: what the spinner drew is gone, nothing to wipe.
      shown = !lineHeld(stream);
      if (shown) stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
    };
    draw();
    ticker = setInterval(draw, 80);
  }, SPINNER_DELAY_MS);
  try {
    return await work();
  } finally {
    clearTimeout(starter);
    clearInterval(ticker);
    if (shown && !lineHeld(stream)) stream.write('\r\u001b[2K');
  }
}
