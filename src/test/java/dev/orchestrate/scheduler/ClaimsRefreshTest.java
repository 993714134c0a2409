package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How often a runner of a shared state reads every item again ({@link Claims#refresh}): every
 * {@link Claims#REFRESH_MS} while that read is cheap, and never more than about a tenth of the
 * scheduler thread once the backlog makes it costly.
 */
class ClaimsRefreshTest {
  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  @Test
  void a_cheap_read_is_repeated_every_refresh_period() {
    assertEquals(ms(Claims.REFRESH_MS), Claims.refreshIntervalNanos(0));
    assertEquals(ms(Claims.REFRESH_MS), Claims.refreshIntervalNanos(ms(2))); // a small backlog's read
    assertEquals(ms(Claims.REFRESH_MS), Claims.refreshIntervalNanos(ms(25)));
  }

  @Test
  void a_costly_read_waits_ten_times_what_it_took_so_that_reading_takes_a_tenth_of_the_thread_at_most() {
    // About what a 100,000-item PostgreSQL state's read takes, and a million's.
    assertEquals(ms(3_000), Claims.refreshIntervalNanos(ms(300)));
    assertEquals(ms(30_000), Claims.refreshIntervalNanos(ms(3_000)));
    for (long took = 1; took < ms(10_000); took = took * 3 + 7) {
      long interval = Claims.refreshIntervalNanos(took);
      double share = (double) took / (interval + took);
      assertEquals(true, share <= 1.0 / (Claims.REFRESH_SHARE + 1) + 1e-9, "read " + took + " ns, share " + share);
    }
  }
}
