package dev.orchestrate.stats;

import java.time.Instant;
import java.util.List;

/**
 * The samples of the trend window, as the trend needs them: the oldest one (growth is measured
 * from its figures) and how many there are. The store counts them in SQL and reads only the oldest,
 * so a window of thousands of samples costs one row read, not thousands.
 *
 * @param oldest  the first sample of the window (by insertion order); null when it has none
 * @param samples how many samples the window holds
 */
public record SampleWindow(Sample oldest, int samples) {
  public static final SampleWindow EMPTY = new SampleWindow(null, 0);

  public SampleWindow {
    if (samples < 0 || (oldest == null) != (samples == 0)) {
      throw new IllegalArgumentException("a window of " + samples + " samples with oldest " + oldest);
    }
  }

  /** The window of {@code samples} (oldest first) that starts at {@code from}: for fakes and tests. */
  static SampleWindow of(List<Sample> samples, Instant from) {
    List<Sample> in = samples.stream().filter(s -> !s.at().isBefore(from)).toList();
    return in.isEmpty() ? EMPTY : new SampleWindow(in.get(0), in.size());
  }
}
