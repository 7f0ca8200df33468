#include "runtime/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace cortado {

namespace {

// How long an idle worker keeps polling for the next loop before it sleeps.
constexpr std::chrono::microseconds kSpin(500);

// Iterations are claimed in chunks, since every claim is an atomic operation on a cache line
// that the cores pass back and forth: a loop of thousands of small tasks (a pooling layer's
// channel planes) otherwise spends most of its time claiming.
// Each chunk is a share of what is left (guided self-scheduling), so the chunks shrink to single
// iterations at the end and tasks of unequal cost still even out.
constexpr int kShareDivisorPerThread = 2;

struct Loop {
    void *user_context;
    halide_task_t task;
    int min, size, share_divisor;
    uint8_t *closure;
    std::atomic<int> next{0}, remaining{0}, error{0};
};

// Runs chunks of iterations of `loop` until none are left; records the first error.
void run_iterations(Loop &loop) {
    for (;;) {
        const int left = loop.size - loop.next.load(std::memory_order_relaxed);
        if (left <= 0) return;
        const int chunk = std::max(1, left / loop.share_divisor);
        const int first = loop.next.fetch_add(chunk);
        if (first >= loop.size) return;
        const int end = std::min(first + chunk, loop.size);
        for (int i = first; i < end; i++) {
            const int result = loop.task(loop.user_context, loop.min + i, loop.closure);
            if (result != 0) {
                int none = 0;
                loop.error.compare_exchange_strong(none, result);
            }
        }
        loop.remaining.fetch_sub(end - first);
    }
}

thread_local bool inside_pool = false;

class Pool {
  public:
    Pool() {
        int threads = int(std::thread::hardware_concurrency());
        // Halide's own pool reads HL_NUM_THREADS; so does this one.
        if (const char *n = std::getenv("HL_NUM_THREADS")) threads = std::atoi(n);
        for (int t = 1; t < threads; t++) threads_.emplace_back([this] { work(); });
    }

    // Runs when the program ends or the library holding this runtime is unloaded (dlclose):
    // the workers must be gone before their code is.
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(sleep_mutex_);
            stopping_.store(true);
            sequence_.fetch_add(1);
        }
        wake_.notify_all();
        for (std::thread &t : threads_) t.join();
    }

    // False when another caller holds the pool: that caller's loop runs serially instead.
    bool run(Loop &loop) {
        std::unique_lock<std::mutex> owner(owner_, std::try_to_lock);
        if (!owner.owns_lock()) return false;
        current_.store(&loop);
        {
            std::lock_guard<std::mutex> lock(sleep_mutex_);
            sequence_.fetch_add(1);
        }
        if (sleepers_.load() > 0) wake_.notify_all();
        inside_pool = true;
        run_iterations(loop);
        inside_pool = false;
        while (loop.remaining.load() > 0) std::this_thread::yield();
        // Workers that saw `loop` may still be about to look at it: wait for them to let go.
        current_.store(nullptr);
        while (active_.load() > 0) std::this_thread::yield();
        return true;
    }

    int workers() const { return int(threads_.size()); }

  private:
    void work() {
        inside_pool = true;
        uint64_t seen = sequence_.load();
        for (;;) {
            const auto idle_since = std::chrono::steady_clock::now();
            const auto woken = [&] { return sequence_.load() != seen || stopping_.load(); };
            while (!woken()) {
                if (std::chrono::steady_clock::now() - idle_since < kSpin) continue;
                std::unique_lock<std::mutex> lock(sleep_mutex_);
                sleepers_.fetch_add(1);
                wake_.wait(lock, woken);
                sleepers_.fetch_sub(1);
            }
            if (stopping_.load()) return;
            seen = sequence_.load();
            active_.fetch_add(1);
            if (Loop *loop = current_.load()) run_iterations(*loop);
            active_.fetch_sub(1);
        }
    }

    std::vector<std::thread> threads_;
    std::mutex owner_, sleep_mutex_;
    std::condition_variable wake_;
    std::atomic<uint64_t> sequence_{0};
    std::atomic<int> sleepers_{0}, active_{0};
    std::atomic<bool> stopping_{false};
    std::atomic<Loop *> current_{nullptr};
};

Pool &pool() {
    static Pool p;
    return p;
}

}  // namespace

int parallel_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
    Loop loop;
    loop.user_context = user_context, loop.task = task, loop.min = min, loop.size = size, loop.closure = closure;
    loop.share_divisor = (pool().workers() + 1) * kShareDivisorPerThread;
    loop.remaining.store(size);
    // Nested loops, single iterations and loops that find the pool busy run here, in order.
    if (inside_pool || size <= 1 || pool().workers() == 0 || !pool().run(loop)) {
        const bool outer = inside_pool;
        inside_pool = true;
        run_iterations(loop);
        inside_pool = outer;
    }
    return loop.error.load();
}

}  // namespace cortado
