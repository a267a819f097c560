/**
 * The media type of a Content-Type header: parameters (`; charset=...`) dropped, lower case; ''
 * when there is no header.
 */
export function mediaTypeOf(header: string | null | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
