package org.slf4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * {@link DirectBinding} against the SLF4J on the class path, each case in a class loader of its own
 * (this JVM's SLF4J was bound long ago): what it binds is what loggers and the MDC then come from.
 */
class DirectBindingTest {
  @Test
  void binds_the_provider_loggers_and_the_mdc_come_from() throws Exception {
    try (URLClassLoader fresh = freshSlf4j()) {
      Class<?> provider = fresh.loadClass("org.slf4j.helpers.NOP_FallbackServiceProvider");
      Object nop = provider.getConstructor().newInstance();
      Class<?> binding = fresh.loadClass(DirectBinding.class.getName());
      Class<?> spi = fresh.loadClass("org.slf4j.spi.SLF4JServiceProvider");
      assertEquals(true, binding.getMethod("bind", spi).invoke(null, nop));

      Class<?> factory = fresh.loadClass(LoggerFactory.class.getName());
      Object expectedFactory = provider.getMethod("getLoggerFactory").invoke(nop);
      assertSame(expectedFactory, factory.getMethod("getILoggerFactory").invoke(null));
      Object logger = factory.getMethod("getLogger", String.class).invoke(null, "x");
      assertEquals("org.slf4j.helpers.NOPLogger", logger.getClass().getName());
      Object mdc = fresh.loadClass("org.slf4j.MDC").getMethod("getMDCAdapter").invoke(null);
      assertSame(provider.getMethod("getMDCAdapter").invoke(nop), mdc);

      // Once bound, a second binding changes nothing.
      assertEquals(false, binding.getMethod("bind", spi).invoke(null, provider.getConstructor().newInstance()));
      assertSame(expectedFactory, factory.getMethod("getILoggerFactory").invoke(null));
    }
  }

  @Test
  void leaves_an_slf4j_that_bound_itself_alone() throws Exception {
    try (URLClassLoader fresh = freshSlf4j()) {
      Class<?> factory = fresh.loadClass(LoggerFactory.class.getName());
      Object bound = factory.getMethod("getILoggerFactory").invoke(null); // SLF4J's own search
      Class<?> provider = fresh.loadClass("org.slf4j.helpers.NOP_FallbackServiceProvider");
      Class<?> spi = fresh.loadClass("org.slf4j.spi.SLF4JServiceProvider");
      Object result = fresh.loadClass(DirectBinding.class.getName()).getMethod("bind", spi)
          .invoke(null, provider.getConstructor().newInstance());
      assertFalse((Boolean) result);
      assertSame(bound, factory.getMethod("getILoggerFactory").invoke(null));
    }
  }

  /** SLF4J's API jar and orchestrate's classes, and nothing else, in a loader of their own. */
  private static URLClassLoader freshSlf4j() {
    URL api = LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
    URL ours = DirectBinding.class.getProtectionDomain().getCodeSource().getLocation();
    assertTrue(api.getPath().contains("slf4j-api"), api.toString());
    assertTrue(ours.getPath().contains("classes"), ours.toString());
    return new URLClassLoader(new URL[] {ours, api}, ClassLoader.getPlatformClassLoader());
  }
}
