package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How many items a runner of a shared state takes into progress at most. */
class FairShareTest {
  @Test
  void a_runner_takes_its_max_concurrent_and_up_to_twice_that_of_its_share_of_max_wip() {
    assertEquals(4, Scheduler.fairShare(16, 4, 4), "max_wip = every runner's slots: each takes what it can run");
    assertEquals(8, Scheduler.fairShare(32, 4, 4), "twice the slots: each takes its share");
    assertEquals(8, Scheduler.fairShare(100, 4, 4), "never more than twice what it can run");
    assertEquals(8, Scheduler.fairShare(32, 4, 1), "alone at first: not the whole max_wip");
    assertEquals(6, Scheduler.fairShare(30, 4, 5));
    assertEquals(4, Scheduler.fairShare(2, 4, 4), "at least max_concurrent (the claim still checks max_wip)");
    assertEquals(1, Scheduler.fairShare(1, 1, 3));
    assertEquals(8, Scheduler.fairShare(16, 4, 0), "no runner counted is counted as one");
  }
}
