package dev.orchestrate.landing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.orchestrate.limits.Quote;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * What {@code execution.review_feedback} printed (docs/workspaces.md, "Review feedback and
 * landing"): the JSON of {@code gh pr view --json state,reviewDecision,reviews,comments}, read as
 * untrusted input. The verdict is {@code reviewDecision} when the forge gives one (it knows the
 * branch protection's required reviewers), else the latest {@code APPROVED} or
 * {@code CHANGES_REQUESTED} review of each author: changes requested by anyone wins, else one
 * approval approves. {@code state} {@code MERGED} or {@code CLOSED} says the pull request is no
 * longer open.
 *
 * <p>Feedback is each review with a body or asking for changes, and each comment; it is new when
 * its key (its {@code id}, else its author, time and text) is not among those already sent.
 */
final class ReviewFeedback {
  /** Untrusted JSON (already bounded to 64 KiB by the command's output): shallow nesting only. */
  private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build()).build();

  /** The longest text of one review or comment sent to the agent; longer ones keep their beginning. */
  static final int ENTRY_MAX_CHARS = 2_000;
  /** The longest feedback sent in one round (the item's last failure is capped again after). */
  static final int NOTES_MAX_CHARS = 12_000;
  /** An id short and plain enough to be kept as it is; any other key is kept as its hash. */
  private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9_=:.-]{1,100}");

  private ReviewFeedback() {
  }

  /** What the pull request's reviewers say. */
  enum Verdict {
    APPROVED, CHANGES_REQUESTED, PENDING, MERGED, CLOSED;

    String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One review or comment.
   *
   * @param key    what remembers it as sent
   * @param author the author's login (or "someone")
   * @param what   "changes requested", "approved", "review" or "comment"
   * @param body   its text, controls escaped, capped
   */
  record Entry(String key, String author, String what, String body) {
  }

  /**
   * The command's output read.
   *
   * @param verdict what the reviewers say; PENDING too when the output could not be read
   * @param fresh   the feedback not sent before, in the order printed
   * @param problem why the output could not be read, or null
   */
  record Reading(Verdict verdict, List<Entry> fresh, String problem) {
    Reading {
      fresh = List.copyOf(fresh);
    }

    static Reading unreadable(String problem) {
      return new Reading(Verdict.PENDING, List.of(), problem);
    }
  }

  /**
   * The forge's author associations whose reviews and comments count: on GitHub anyone may submit
   * an approving review or a comment, and only these have write access to the repository.
   */
  static final Set<String> TRUSTED = Set.of("OWNER", "MEMBER", "COLLABORATOR");

  /** As {@link #read(String, List, String)} with no pushed commit known. */
  static Reading read(String output, List<String> sent) {
    return read(output, sent, null);
  }

  /**
   * Reads {@code output} (masked already); {@code sent}: the keys of feedback already sent;
   * {@code head}: the commit orchestrate pushed last, or null. A review or comment whose
   * {@code authorAssociation} is given and is none of {@link #TRUSTED} is left out altogether (no
   * verdict, nothing sent); an approval of another commit than {@code head} (its {@code commit.oid}
   * given) approves nothing, and then neither does the forge's {@code reviewDecision} alone: what
   * lands is what a person approved.
   */
  static Reading read(String output, List<String> sent, String head) {
    JsonNode doc;
    try {
      doc = JSON.readTree(output.strip());
    } catch (JsonProcessingException e) {
      return Reading.unreadable("execution.review_feedback printed no JSON object (" + Quote.line(
          String.valueOf(e.getOriginalMessage()), 120) + "): it should print what `gh pr view --json "
          + "state,reviewDecision,reviews,comments` prints");
    }
    if (doc == null || !doc.isObject()) {
      return Reading.unreadable("execution.review_feedback printed no JSON object: it should print what `gh pr "
          + "view --json state,reviewDecision,reviews,comments` prints");
    }
    Set<String> known = new HashSet<>(sent);
    List<Entry> fresh = new ArrayList<>();
    Map<String, String> latest = new LinkedHashMap<>(); // author -> their last APPROVED or CHANGES_REQUESTED
    boolean staleApproval = false;
    for (JsonNode review : array(doc, "reviews")) {
      if (!trusted(review)) {
        continue;
      }
      String state = text(review, "state").toUpperCase(Locale.ROOT);
      String author = author(review);
      String commit = review.path("commit").path("oid").asText("");
      if (state.equals("APPROVED") && head != null && !commit.isEmpty() && !commit.equals(head)) {
        staleApproval = true;
        state = "STALE"; // it approved a commit that is no longer the one that would land
      }
      if (state.equals("APPROVED") || state.equals("CHANGES_REQUESTED") || state.equals("DISMISSED")
          || state.equals("STALE")) {
        latest.put(author, state);
      }
      String body = text(review, "body");
      if (body.isBlank() && !state.equals("CHANGES_REQUESTED")) {
        continue; // an approval or a review of line comments only: nothing to read here
      }
      String what = switch (state) {
        case "CHANGES_REQUESTED" -> "changes requested";
        case "APPROVED" -> "approved";
        default -> "review";
      };
      add(fresh, known, review, author, what, body, text(review, "submittedAt"));
    }
    for (JsonNode comment : array(doc, "comments")) {
      String body = text(comment, "body");
      if (!body.isBlank() && trusted(comment)) {
        add(fresh, known, comment, author(comment), "comment", body, text(comment, "createdAt"));
      }
    }
    return new Reading(verdict(doc, latest, staleApproval), fresh, null);
  }

  /** Whether the entry's author may speak for the repository: any, when the forge does not say. */
  private static boolean trusted(JsonNode node) {
    String association = text(node, "authorAssociation").toUpperCase(Locale.ROOT);
    return association.isEmpty() || TRUSTED.contains(association);
  }

  private static Verdict verdict(JsonNode doc, Map<String, String> latest, boolean staleApproval) {
    String state = text(doc, "state").toUpperCase(Locale.ROOT);
    if (state.equals("MERGED")) {
      return Verdict.MERGED;
    }
    if (state.equals("CLOSED")) {
      return Verdict.CLOSED;
    }
    String decision = text(doc, "reviewDecision").toUpperCase(Locale.ROOT);
    if (decision.equals("APPROVED")) {
      // A forge that keeps stale approvals (GitHub's default) says APPROVED after a new push too.
      return staleApproval && !latest.containsValue("APPROVED") ? Verdict.PENDING : Verdict.APPROVED;
    }
    if (decision.equals("CHANGES_REQUESTED")) {
      return Verdict.CHANGES_REQUESTED;
    }
    if (!decision.isEmpty()) {
      return Verdict.PENDING; // REVIEW_REQUIRED: the forge still wants a review
    }
    if (latest.containsValue("CHANGES_REQUESTED")) {
      return Verdict.CHANGES_REQUESTED;
    }
    return latest.containsValue("APPROVED") ? Verdict.APPROVED : Verdict.PENDING;
  }

  private static void add(List<Entry> fresh, Set<String> known, JsonNode node, String author, String what,
      String body, String at) {
    String key = key(text(node, "id"), author, at, body);
    if (known.add(key)) {
      String text = Quote.escapedLines(body.strip());
      if (text.length() > ENTRY_MAX_CHARS) {
        text = text.substring(0, ENTRY_MAX_CHARS) + " [...]";
      }
      fresh.add(new Entry(key, author, what, text));
    }
  }

  /** The entry's id when it is a plain one, else a hash of it (or of its author, time and text). */
  static String key(String id, String author, String at, String body) {
    if (!id.isEmpty() && PLAIN_ID.matcher(id).matches()) {
      return id;
    }
    String basis = id.isEmpty() ? author + "\u0000" + at + "\u0000" + body : id;
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder("sha256:");
      for (int i = 0; i < 16; i++) {
        hex.append(String.format("%02x", digest[i]));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The feedback as the agent reads it, after {@code intro}: each entry's author and kind, then its
   * text; capped at {@link #NOTES_MAX_CHARS}.
   */
  static String notes(List<Entry> entries, UnaryOperator<String> mask) {
    StringBuilder out = new StringBuilder();
    for (Entry e : entries) {
      String one = "- " + Quote.line(e.author(), 60) + " (" + e.what() + "):\n"
          + (e.body().isBlank() ? "  (no text)" : e.body().indent(2).stripTrailing()) + "\n";
      if (out.length() + one.length() > NOTES_MAX_CHARS) {
        out.append("[... ").append(entries.size() - entries.indexOf(e)).append(" more left out]\n");
        break;
      }
      out.append(one);
    }
    return mask.apply(out.toString().stripTrailing());
  }

  private static Iterable<JsonNode> array(JsonNode doc, String field) {
    JsonNode node = doc.get(field);
    return node != null && node.isArray() ? node : List.of();
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isValueNode() && !value.isNull() ? value.asText() : "";
  }

  private static String author(JsonNode node) {
    JsonNode author = node.get("author");
    String login = author == null ? "" : author.isObject() ? text(author, "login") : text(node, "author");
    return login.isBlank() ? "someone" : Quote.escaped(login.strip());
  }
}
