// A Java program with a known number of thread starts and garbage
// collections, for the hotspot probes of libjvm.so (docs/recipes/java.md):
//   java GcThreads THREADS GCS
// starts and joins THREADS threads, then calls System.gc() GCS times, and
// prints how many threads the JVM says were started (ThreadMXBean counts
// the Java-visible ones; the JVM's compiler and sweeper threads are hidden).
import java.lang.management.ManagementFactory;

public class GcThreads {
  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    int gcs = Integer.parseInt(args[1]);
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        byte[] b = new byte[1 << 20];
        b[0] = 1;
      });
      t.start();
      t.join();
    }
    for (int i = 0; i < gcs; i++) System.gc();
    System.out.println("started threads "
        + ManagementFactory.getThreadMXBean().getTotalStartedThreadCount());
  }
}
