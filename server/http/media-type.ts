/** The media type of a Content-Type header, parameters (charset) aside and lowercase: "application/jsonp" is not JSON. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return contentType ? contentType.split(";", 1)[0]!.trim().toLowerCase() : "";
}
