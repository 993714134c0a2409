package dev.orchestrate.notify;

import java.time.Duration;

/** Waits between retries; a test passes one that records the waits instead of sleeping. */
@FunctionalInterface
interface Sleeper {
  Sleeper REAL = duration -> Thread.sleep(duration.toMillis());

  void sleep(Duration duration) throws InterruptedException;
}
