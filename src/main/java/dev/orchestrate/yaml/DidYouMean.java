package dev.orchestrate.yaml;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** Suggests the intended word for a misspelt key: the closest candidate by edit distance. */
public final class DidYouMean {
  private DidYouMean() {}

  public static Optional<String> closest(String given, Collection<String> candidates) {
    String lower = given.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = boundedDistance(lower, candidate.toLowerCase(Locale.ROOT));
      if (isPlausible(lower, candidate.toLowerCase(Locale.ROOT), distance) && distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Close enough to be a typo, or a shortening like {@code depends} for {@code depends_on}. */
  private static boolean isPlausible(String given, String candidate, int distance) {
    if (distance <= Math.max(2, candidate.length() / 3)) {
      return distance < Math.max(given.length(), candidate.length());
    }
    boolean prefix = candidate.startsWith(given) || given.startsWith(candidate);
    return prefix && Math.min(given.length(), candidate.length()) >= 4;
  }

  /**
   * {@link #distance}, except that two words whose lengths differ by more than any typo can are
   * not compared character by character (the table would be as large as their product: a
   * megabyte-long key against a short one): one a prefix of the other are that difference apart,
   * any other pair is too far apart to suggest.
   */
  private static int boundedDistance(String given, String candidate) {
    int difference = Math.abs(given.length() - candidate.length());
    if (difference <= Math.max(2, candidate.length() / 3)) {
      return distance(given, candidate);
    }
    boolean prefix = candidate.startsWith(given) || given.startsWith(candidate);
    return prefix ? difference : Integer.MAX_VALUE;
  }

  /** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions. */
  public static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
