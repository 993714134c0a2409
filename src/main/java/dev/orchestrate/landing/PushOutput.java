package dev.orchestrate.landing;

import dev.orchestrate.workspace.SharedRemote;

import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code merge: push} keeps of the output of {@code git push} and of the pull-request command:
 * the address of the pull request (the last http(s) URL printed), and the output itself with every
 * credential masked before it is logged or stored. Credentials are the user part of a URL
 * ({@code https://user:token@host} becomes {@code https://***@host}) and the secrets of the
 * agents' mask ({@code jobs/Secrets}: {@code agent.secret_env} and the variables named like
 * secrets), which the run passes in ({@code Worktrees.masking}).
 */
public final class PushOutput {
  public static final String MASK = "***";
  /** How much of a failure's output is kept in the item's note. */
  static final int TAIL_MAX_CHARS = 2_000;
  /** A URL's scheme, then a user part: everything up to the '@' before the host. */
  private static final Pattern USER_INFO = SharedRemote.USER_INFO;
  private static final Pattern URL = Pattern.compile("(?i)\\bhttps?://[A-Za-z0-9._~:/?#@!$&*+,;=%-]+");
  /** Control characters (but newline and tab) and bidi overrides, shown as '?' in a stored note. */
  private static final Pattern UNPRINTABLE = Pattern
      .compile("[\\p{Cntrl}&&[^\\n\\t]]|[\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]");

  private final UnaryOperator<String> secrets;

  private PushOutput(UnaryOperator<String> secrets) {
    this.secrets = secrets;
  }

  /** The mask of URL credentials and of {@code secrets} (the agents' mask; identity for none). */
  public static PushOutput of(UnaryOperator<String> secrets) {
    return new PushOutput(java.util.Objects.requireNonNull(secrets, "secrets"));
  }

  /** {@code text} with the user part of every URL replaced by {@value #MASK}, then the secrets masked. */
  public String mask(String text) {
    if (text == null) {
      return null;
    }
    return secrets.apply(SharedRemote.withoutCredentials(text));
  }

  /** The end of a masked output, at most {@link #TAIL_MAX_CHARS} characters, control characters made '?'. */
  String tail(String text) {
    String masked = UNPRINTABLE.matcher(mask(text == null ? "" : text.strip())).replaceAll("?");
    return masked.length() <= TAIL_MAX_CHARS ? masked : "..." + masked.substring(masked.length() - TAIL_MAX_CHARS);
  }

  /**
   * The last http(s) URL in {@code text}, without the punctuation that ends a sentence after it
   * ({@code .,;:!?}) or its user part; null when there is none.
   */
  public static String lastUrl(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = URL.matcher(text);
    String last = null;
    while (m.find()) {
      last = m.group();
    }
    if (last == null) {
      return null;
    }
    last = last.replaceAll("[.,;:!?]+$", "");
    return USER_INFO.matcher(last).replaceAll(r -> Matcher.quoteReplacement(r.group(1)));
  }
}
