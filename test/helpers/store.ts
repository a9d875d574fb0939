export { openStore, type Store } from '../../src/sandbox/store/open.js';
