/** How many requests the request log keeps, and how many GET /_emulator/requests lists when not told. */
export const REQUEST_LOG_CAPACITY = 500;
export const REQUEST_LOG_DEFAULT_LIMIT = 100;
