package dev.orchestrate.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.Usage;
import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The shared part of every preset's reader: stdout is JSON Lines (one event per line); lines that
 * are not a JSON object (a banner, a warning) are skipped. Subclasses see each event and keep
 * bounded state.
 *
 * <p>The usage figures of an event are read by {@link #count} and {@link #amount}, which take only
 * what {@link Usage} can hold: a figure that is not a number, negative, not finite, not whole (a
 * count) or above its ceiling is unknown, and the reader remembers why and which figure of the job
 * it spoils ({@link Figure}); {@link #checked} applies that to the job's usage. Numbers JSON does not
 * allow ({@code NaN}, {@code Infinity}, {@code +1}, {@code 01}, {@code .5}) are parsed so that such
 * a figure is refused alone and the rest of its event still counts.
 */
abstract class JsonEvents implements OutputReader {

  /** The figures of a {@link Usage} a refused value leaves unknown. */
  enum Figure {
    INPUT, OUTPUT, CACHE_READ, CACHE_WRITE, COST
  }

  /** Problems named in a note; more are counted, so the note stays short whatever the agent prints. */
  static final int NOTED_PROBLEMS = 8;
  /** Digits of a refused number quoted in a note. */
  private static final int QUOTED_CHARS = 24;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS, JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS,
          JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS, JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS,
          JsonReadFeature.ALLOW_TRAILING_DECIMAL_POINT_FOR_NUMBERS)
      .build();

  private final Set<Figure> spoiled = EnumSet.noneOf(Figure.class);
  private final Set<String> problems = new LinkedHashSet<>();
  private int unnoted;
  private String session;

  @Override
  public final void line(String line) {
    String text = line.strip();
    if (!text.startsWith("{")) {
      notAnEvent(line);
      return;
    }
    try {
      JsonNode event = JSON.readTree(text);
      if (event != null && event.isObject()) {
        event(event);
        if (session == null) {
          String id = sessionOf(event);
          session = AgentSession.valid(id) ? id : null;
        }
      } else {
        notAnEvent(line);
      }
    } catch (JsonProcessingException e) {
      notAnEvent(line); // agents print other things too
    }
  }

  abstract void event(JsonNode event);

  /** A line that is not a JSON object: skipped by the CLIs' readers (a banner, a warning). */
  void notAnEvent(String line) {
  }

  /** The session id this event names, if it names one (the first valid one of the stream is kept). */
  String sessionOf(JsonNode event) {
    return null;
  }

  @Override
  public String sessionId() {
    return session;
  }

  /** A text the agent wrote, within the cap every agent text gets; null when absent or blank. */
  static String text(JsonNode node) {
    if (node == null || !node.isTextual() || node.asText().isBlank()) {
      return null;
    }
    return SizeCap.cap(node.asText().strip(), AgentOutcome.TEXT_MAX_CHARS);
  }

  /**
   * A token count: a whole number from 0 to {@link Usage#MAX_TOKENS}. Absent or JSON null: null,
   * as not reported. Anything else is null too, noted under {@code field} (the agent's name for
   * it), and leaves {@code spoils} unknown for the job.
   */
  Long count(JsonNode node, String field, Figure... spoils) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    String problem = null;
    if (!node.isNumber()) {
      problem = field + " (" + kind(node) + ", not a number)";
    } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
      problem = field + " " + quoted(node) + " (not a finite number)";
    } else {
      BigDecimal value = node.decimalValue();
      if (value.signum() < 0) {
        problem = field + " " + quoted(node) + " (negative)";
      } else if (value.stripTrailingZeros().scale() > 0) {
        problem = field + " " + quoted(node) + " (not a whole number)";
      } else if (value.compareTo(BigDecimal.valueOf(Usage.MAX_TOKENS)) > 0) {
        problem = field + " " + quoted(node) + " " + Usage.ABOVE_TOKENS;
      } else {
        return value.longValueExact();
      }
    }
    refuse(problem, spoils);
    return null;
  }

  /**
   * A cost in US dollars: a finite number from 0 to {@link Usage#MAX_COST_USD}. Absent or JSON
   * null: null; anything else is null, noted, and leaves the job's cost unknown.
   */
  Double amount(JsonNode node, String field) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    String problem;
    if (!node.isNumber()) {
      problem = field + " (" + kind(node) + ", not a number)";
    } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
      problem = field + " " + quoted(node) + " (not a finite number)";
    } else if (node.decimalValue().signum() < 0) {
      problem = field + " " + quoted(node) + " (negative)";
    } else if (node.decimalValue().compareTo(BigDecimal.valueOf(Usage.MAX_COST_USD)) > 0) {
      problem = field + " " + quoted(node) + " " + Usage.ABOVE_COST;
    } else {
      return node.doubleValue();
    }
    refuse(problem, Figure.COST);
    return null;
  }

  /**
   * The job's usage from the figures the reader summed: each figure a refused value spoiled is
   * unknown, each above its ceiling too (a sum may pass it), and the note says why.
   */
  Usage checked(Usage figures) {
    Usage u = new Usage(spoiled.contains(Figure.INPUT) ? null : figures.inputTokens(),
        spoiled.contains(Figure.OUTPUT) ? null : figures.outputTokens(),
        spoiled.contains(Figure.CACHE_READ) ? null : figures.cacheReadTokens(),
        spoiled.contains(Figure.CACHE_WRITE) ? null : figures.cacheWriteTokens(),
        spoiled.contains(Figure.COST) ? null : figures.costUsd());
    if (!problems.isEmpty()) {
      u = u.noting(String.join("; ", problems) + (unnoted == 0 ? "" : " (and " + unnoted + " more)"));
    }
    return u.bounded();
  }

  /** Forgets what was refused: for an event whose usage replaces, not adds to, what came before. */
  void forgetRefusals() {
    spoiled.clear();
    problems.clear();
    unnoted = 0;
  }

  private void refuse(String problem, Figure... spoils) {
    spoiled.addAll(List.of(spoils));
    if (problems.contains(problem)) {
      return;
    }
    if (problems.size() < NOTED_PROBLEMS) {
      problems.add(problem);
    } else if (unnoted < Integer.MAX_VALUE) {
      unnoted++;
    }
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case STRING -> "a string";
      case BOOLEAN -> "a boolean";
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      default -> "a value";
    };
  }

  /** The number as the agent wrote it (as parsed), cut when it is very long. */
  private static String quoted(JsonNode number) {
    String text = number.asText();
    return text.length() <= QUOTED_CHARS ? text
        : text.substring(0, QUOTED_CHARS) + "… (" + text.length() + " characters)";
  }
}
