package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import dev.orchestrate.outcome.AgentOutcome.MemoryNote;
import dev.orchestrate.outcome.ProviderFailure;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The values that must never reach a sink orchestrate writes (the job log, the result file as
 * stored, the state, prompts, the terminal), and the masking that replaces each of them with
 * {@value #MASK}. Where secrets overlap or touch, the whole covered stretch becomes one mask, so
 * no part of either is left.
 *
 * <p>Which values are secret: those of the variables {@code agent.secret_env} names, of the
 * summarizer's {@code api_key_env}, of every webhook's {@code secret_env}, every webhook header's
 * value ({@link SecretEnv}), and of every variable, in the runner's environment or in
 * {@code agent.env}, whose name ends in {@code _API_KEY}, {@code _TOKEN}, {@code _SECRET} or
 * {@code _PASSWORD}. Values shorter than {@value #MIN_CHARS} characters are left alone: masking
 * every "1" or "dev" would garble output and protect nothing.
 */
public final class Secrets {

  public static final String MASK = "***";
  /** Shorter values are not masked (see the class comment). */
  public static final int MIN_CHARS = 4;
  /** Name endings that make a variable secret without being listed. */
  public static final List<String> SECRET_NAME_SUFFIXES = List.of("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD");

  public static final Secrets NONE = new Secrets(List.of());

  private static final byte[] MASK_BYTES = MASK.getBytes(StandardCharsets.UTF_8);

  private final List<String> values;
  private final byte[][] bytes;
  private final int longestBytes;
  /** Whether some secret starts with this byte: most bytes of a stream need no further look. */
  private final boolean[] startsSome = new boolean[256];

  private Secrets(Collection<String> values) {
    Set<String> kept = new LinkedHashSet<>();
    for (String value : values) {
      if (value != null && value.length() >= MIN_CHARS) {
        kept.add(value);
      }
    }
    List<String> sorted = new ArrayList<>(kept);
    sorted.sort(Comparator.comparingInt(String::length).reversed());
    this.values = List.copyOf(sorted);
    this.bytes = sorted.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    this.longestBytes = Arrays.stream(bytes).mapToInt(b -> b.length).max().orElse(0);
    for (byte[] secret : bytes) {
      startsSome[secret[0] & 0xFF] = true;
    }
  }

  /** These values (short ones dropped). */
  static Secrets of(Collection<String> values) {
    return new Secrets(values);
  }

  /**
   * The secrets of one agent's job: see the class comment. {@code runnerEnv} is the environment
   * orchestrate runs in; {@code summarizerKeyEnv} may be null.
   */
  public static Secrets forAgent(Map<String, String> runnerEnv, AgentConfig agent, String summarizerKeyEnv) {
    return forAgent(runnerEnv, agent, SecretEnv.summarizerOnly(summarizerKeyEnv));
  }

  /**
   * The secrets of one agent's job and of the run around it: those of the class comment, and every
   * secret the config names ({@code secretEnv}: every profile's, every webhook's, its header values).
   */
  public static Secrets forAgent(Map<String, String> runnerEnv, AgentConfig agent, SecretEnv secretEnv) {
    Set<String> names = new LinkedHashSet<>(agent.secretEnv());
    names.addAll(secretEnv.names());
    for (String name : runnerEnv.keySet()) {
      if (hasSecretName(name)) {
        names.add(name);
      }
    }
    for (String name : agent.env().keySet()) {
      if (hasSecretName(name)) {
        names.add(name);
      }
    }
    List<String> values = new ArrayList<>(secretEnv.values());
    for (String name : names) {
      values.add(runnerEnv.get(name));
      values.add(agent.env().get(name));
    }
    return of(values);
  }

  /** Whether a variable of this name is secret without being listed. */
  static boolean hasSecretName(String name) {
    String upper = name.toUpperCase(Locale.ROOT);
    return SECRET_NAME_SUFFIXES.stream().anyMatch(upper::endsWith);
  }

  boolean isEmpty() {
    return values.isEmpty();
  }

  /** {@code text} with every secret in it replaced by {@value #MASK}. */
  public String mask(String text) {
    if (text == null || values.isEmpty() || values.stream().noneMatch(text::contains)) {
      return text;
    }
    boolean[] covered = new boolean[text.length()];
    for (String value : values) {
      for (int at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        Arrays.fill(covered, at, at + value.length(), true);
      }
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      if (!covered[i]) {
        out.append(text.charAt(i));
      } else if (i == 0 || !covered[i - 1]) {
        out.append(MASK);
      }
    }
    return out.toString();
  }

  /** Whether {@code data} holds a secret (as UTF-8). */
  boolean occursIn(byte[] data) {
    for (byte[] secret : bytes) {
      if (indexOf(data, secret) >= 0) {
        return true;
      }
    }
    return false;
  }

  /** Every text of {@code outcome} masked; the outcome itself when nothing needed masking. */
  AgentOutcome mask(AgentOutcome outcome) {
    if (values.isEmpty()) {
      return outcome;
    }
    List<MemoryNote> memories = new ArrayList<>();
    for (MemoryNote note : outcome.memories()) {
      memories.add(new MemoryNote(note.kind(), mask(note.content()),
          note.tags().stream().map(this::mask).toList()));
    }
    List<FollowUp> followUps = new ArrayList<>();
    for (FollowUp followUp : outcome.followUps()) {
      followUps.add(new FollowUp(mask(followUp.title()), mask(followUp.description())));
    }
    ProviderFailure provider = outcome.provider() == null ? null : new ProviderFailure(outcome.provider().kind(),
        mask(outcome.provider().message()), outcome.provider().resetEpoch(), outcome.provider().resetIn());
    return new AgentOutcome(outcome.result(), mask(outcome.summary()), mask(outcome.context()), memories,
        followUps, outcome.exitCode(), outcome.ending(), outcome.elapsed(), outcome.truncatedValues(),
        outcome.usage(), provider, outcome.session(),
        outcome.checks().stream().map(run -> run.withTail(mask(run.tail()))).toList(), outcome.verdict(),
        outcome.answer() == null ? null : mask(outcome.answer()));
  }

  /** A masker for one byte stream, such as an agent's stdout. */
  StreamMasker streamMasker() {
    return new StreamMasker();
  }

  private static int indexOf(byte[] data, byte[] secret) {
    outer : for (int i = 0; i + secret.length <= data.length; i++) {
      for (int j = 0; j < secret.length; j++) {
        if (data[i + j] != secret[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * Masks a stream that arrives in chunks. A secret may be split between two reads, so the end of
   * a chunk that could still be the start of a secret is held back (at most one byte less than the
   * longest secret) until the next chunk or {@link #finish} decides it. Not thread-safe: one per
   * stream.
   */
  final class StreamMasker {
    private byte[] pending = new byte[0];
    /** Bytes of {@code pending} before this index are covered by a secret that started earlier. */
    private int coveredUntil;
    /** The last byte given out was part of a mask, so a covered byte that follows adds no new one. */
    private boolean inMask;

    /** Takes the next chunk; returns what can be given out now, masked. */
    byte[] process(byte[] chunk, int offset, int length) {
      if (bytes.length == 0) {
        return Arrays.copyOfRange(chunk, offset, offset + length);
      }
      byte[] data = Arrays.copyOf(pending, pending.length + length);
      System.arraycopy(chunk, offset, data, pending.length, length);
      return drain(data, false);
    }

    /** The end of the stream: gives out whatever was held back, masked. */
    byte[] finish() {
      return drain(pending, true);
    }

    private byte[] drain(byte[] data, boolean last) {
      byte[] out = new byte[data.length + MASK_BYTES.length];
      int size = 0;
      int covered = coveredUntil;
      int i = 0;
      for (; i < data.length; i++) {
        byte b = data[i];
        if (startsSome[b & 0xFF]) {
          if (!last && mayStartSecret(data, i)) {
            break; // undecided: a secret may begin here and run into the next chunk
          }
          for (byte[] secret : bytes) {
            if (startsWith(data, i, secret)) {
              covered = Math.max(covered, i + secret.length);
            }
          }
        }
        if (i < covered) {
          if (!inMask) {
            if (size + MASK_BYTES.length > out.length) {
              out = Arrays.copyOf(out, out.length * 2 + MASK_BYTES.length);
            }
            System.arraycopy(MASK_BYTES, 0, out, size, MASK_BYTES.length);
            size += MASK_BYTES.length;
            inMask = true;
          }
        } else {
          if (size == out.length) {
            out = Arrays.copyOf(out, out.length * 2 + 1);
          }
          out[size++] = b;
          inMask = false;
        }
      }
      pending = Arrays.copyOfRange(data, i, data.length);
      coveredUntil = Math.max(0, covered - i);
      return size == out.length ? out : Arrays.copyOf(out, size);
    }

    /** A secret longer than what is left of {@code data} from {@code at} begins with all of it. */
    private boolean mayStartSecret(byte[] data, int at) {
      int rest = data.length - at;
      if (rest >= longestBytes) {
        return false;
      }
      for (byte[] secret : bytes) {
        if (secret.length > rest && Arrays.equals(data, at, data.length, secret, 0, rest)) {
          return true;
        }
      }
      return false;
    }

    private boolean startsWith(byte[] data, int at, byte[] secret) {
      if (at + secret.length > data.length) {
        return false;
      }
      for (int j = 0; j < secret.length; j++) {
        if (data[at + j] != secret[j]) {
          return false;
        }
      }
      return true;
    }
  }
}
