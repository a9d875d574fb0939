/** Replaced at build time with package.json's version. */
declare const WHSVC_VERSION: string;
