/**
 * The part of a streamed text not printed yet. With the core's `appended` (what this update added,
 * see session events) and a text that grew by exactly that much, it is `appended`: `text.slice`
 * would first flatten the text (a rope of every chunk so far), a copy of the whole message per
 * chunk, quadratic in its length.
 */
export function unprinted(text: string, printed: number, appended: string | undefined): string {
  return appended !== undefined && text.length === printed + appended.length ? appended : text.slice(printed);
}
