/* Links the AlexNet library that cortado_add_network() compiled and calls alexnet_forward().
 *
 *   alexnet_classify [weights.caffemodel [image.f32]]
 *
 * Without weights the network uses the prototxt's fillers (seed 1); without an image it feeds a
 * synthetic gradient. image.f32 is raw float32 in Caffe's layout (1x3x227x227, mean-subtracted).
 * Prints the time of each run and the top-5 classes. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "alexnet.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    static float input[alexnet_INPUT_COUNT];
    static float output[alexnet_OUTPUT_COUNT];
    if (argc > 2) {
        FILE *f = fopen(argv[2], "rb");
        if (!f || fread(input, sizeof(float), alexnet_INPUT_COUNT, f) != alexnet_INPUT_COUNT) {
            fprintf(stderr, "cannot read %d floats from %s\n", alexnet_INPUT_COUNT, argv[2]);
            return 1;
        }
        fclose(f);
    } else {
        for (int i = 0; i < alexnet_INPUT_COUNT; i++) input[i] = (float)(i % 227) / 227.0f - 0.5f;
    }

    alexnet_context *net = alexnet_create(argc > 1 ? argv[1] : NULL, 1);
    if (!net) {
        fprintf(stderr, "alexnet_create: %s\n", alexnet_last_error());
        return 1;
    }
    for (int run = 0; run < 3; run++) {
        double start = now_ms();
        if (alexnet_forward(net, input, output) != 0) {
            fprintf(stderr, "alexnet_forward: %s\n", alexnet_last_error());
            alexnet_destroy(net);
            return 1;
        }
        printf("run %d: %.2f ms\n", run, now_ms() - start);
    }
    printf("top-5:");
    for (int k = 0; k < 5; k++) {
        int best = 0;
        for (int i = 1; i < alexnet_OUTPUT_COUNT; i++)
            if (output[i] > output[best]) best = i;
        printf("  #%d %.6f", best, output[best]);
        output[best] = -1.0f;
    }
    printf("\n");
    alexnet_destroy(net);
    return 0;
}
