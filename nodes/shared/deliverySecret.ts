/** The shortest contact-form secret: the credential refuses to save a shorter one, the trigger checks it. */
export const MIN_SECRET_LENGTH = 16;
