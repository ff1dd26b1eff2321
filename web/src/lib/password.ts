// The server's password rule (PASSWORD_MIN/MAX of src/http/schemas/sessions.ts, a
// module the bundle leaves out since it builds TypeBox schemas at load), checked before
// sending so the form can say so next to the field; herald checks it again.
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function passwordProblem(password: string, repeat: string): { field: 'password' | 'repeat'; text: string } | undefined {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return { field: 'password', text: `Password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` };
  if (password !== repeat) return { field: 'repeat', text: 'The two passwords differ' };
  return undefined;
}
