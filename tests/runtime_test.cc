// The runtime's own readers, without protobuf: .caffemodel files written by protobuf (V2 with
// shapes, V1 with legacy dims) read back exactly; damaged files are refused with a message.
// Also the .npy files the CLI reads and writes, the large allocations of the arena and the
// kernels' scratch, and the kernels' parallel loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "frontend/caffe.pb.h"
#include "frontend/caffemodel_writer.h"
#include "runtime/caffemodel_reader.h"
#include "runtime/cuda_register_cap.h"
#include "runtime/huge_pages.h"
#include "runtime/opencl_build_options.h"
#include "runtime/parallel_for.h"
#include "frontend/npy.h"

namespace cortado {
namespace {
namespace fs = std::filesystem;

std::string temp_path(const std::string &name) {
    return (fs::temp_directory_path() / ("cortado-rt-" + std::to_string(::getpid()) + "-" + name)).string();
}

TEST(CaffemodelReader, ReadsWhatTheProtobufWriterWrote) {
    const std::string path = temp_path("v2.caffemodel");
    write_caffemodel(path, "net",
                     {LayerWeights{"conv/1x1", {{2, 1, 1, 3}, {2}}, {{1, 2, 3, 4, 5, 6}, {-1, 0.5f}}},
                      LayerWeights{"fc", {{1, 2}}, {{7, 8}}}});
    std::vector<LayerBlobs> layers;
    std::string error;
    ASSERT_TRUE(read_caffemodel(path, &layers, &error)) << error;
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[0].name, "conv/1x1");
    EXPECT_EQ(layers[0].blobs[0].shape, (std::vector<int64_t>{2, 1, 1, 3}));
    EXPECT_EQ(layers[0].blobs[0].data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(layers[0].blobs[1].data, (std::vector<float>{-1, 0.5f}));
    EXPECT_EQ(layers[1].blobs[0].data, (std::vector<float>{7, 8}));
    fs::remove(path);
}

TEST(CaffemodelReader, ReadsLegacyV1LayersWithFourDims) {
    caffe::NetParameter net;
    caffe::V1LayerParameter *layer = net.add_layers();
    layer->set_name("conv1");
    layer->set_type(caffe::V1LayerParameter::CONVOLUTION);
    caffe::BlobProto *blob = layer->add_blobs();
    blob->set_num(1);
    blob->set_channels(1);
    blob->set_height(2);
    blob->set_width(2);
    for (float v : {1.f, 2.f, 3.f, 4.f}) blob->add_data(v);
    const std::string bytes = net.SerializeAsString();
    std::vector<LayerBlobs> layers;
    std::string error;
    ASSERT_TRUE(parse_caffemodel(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), &layers, &error))
        << error;
    ASSERT_EQ(layers.size(), 1u);
    EXPECT_EQ(layers[0].name, "conv1");
    EXPECT_EQ(layers[0].blobs[0].shape, (std::vector<int64_t>{1, 1, 2, 2}));
    EXPECT_EQ(layers[0].blobs[0].data, (std::vector<float>{1, 2, 3, 4}));

    // Every truncation inside the message is refused, never crashes.
    for (size_t cut = 1; cut < bytes.size(); cut++) {
        std::vector<LayerBlobs> partial;
        const bool ok = parse_caffemodel(reinterpret_cast<const uint8_t *>(bytes.data()), cut, &partial, &error);
        EXPECT_FALSE(ok) << "cut at " << cut;
    }
}

TEST(CaffemodelReader, DataThatDoesNotFillTheShapeIsAnError) {
    caffe::NetParameter net;
    caffe::LayerParameter *layer = net.add_layer();
    layer->set_name("ip");
    caffe::BlobProto *blob = layer->add_blobs();
    blob->mutable_shape()->add_dim(3);
    blob->add_data(1.0f);
    const std::string bytes = net.SerializeAsString();
    std::vector<LayerBlobs> layers;
    std::string error;
    EXPECT_FALSE(parse_caffemodel(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), &layers, &error));
    EXPECT_NE(error.find("'ip'"), std::string::npos) << error;
}

TEST(Npy, RoundTripAndRefusals) {
    const std::string path = temp_path("x.npy");
    const std::vector<float> data = {1.5f, -2.0f, 3.25f, 0.0f, 5.0f, 6.0f};
    std::string error;
    ASSERT_TRUE(write_npy(path, {2, 3}, data.data(), &error)) << error;
    std::vector<int64_t> shape;
    std::vector<float> back;
    ASSERT_TRUE(read_npy(path, &shape, &back, &error)) << error;
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(back, data);

    std::string header("\x93NUMPY\x01\x00", 8);
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
    dict.resize(118, ' ');
    dict += '\n';
    header += char(dict.size() & 0xff);
    header += char(dict.size() >> 8);
    std::ofstream(path, std::ios::binary) << header << dict << std::string(8, '\0');
    EXPECT_FALSE(read_npy(path, &shape, &back, &error));
    EXPECT_NE(error.find("<f8"), std::string::npos) << "error: " << error;
    fs::remove(path);
}

// Small blocks keep the alignment asked for; from 2 MiB they start on a huge-page boundary,
// and every byte asked for is writable (the block is rounded up, not cut).
TEST(HugePages, LargeBlocksAreHugePageAlignedAndWhole) {
    for (size_t bytes :
         {size_t(100), size_t(64) << 10, (size_t(2) << 20) - 1, size_t(2) << 20, (size_t(5) << 20) + 3}) {
        char *block = static_cast<char *>(allocate_large(128, bytes));
        ASSERT_NE(block, nullptr) << bytes;
        const size_t alignment = bytes >= (size_t(2) << 20) ? size_t(2) << 20 : 128;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % alignment, 0u) << bytes << " bytes";
        std::fill(block, block + bytes, char(1));
        EXPECT_EQ(block[bytes - 1], 1);
        std::free(block);
    }
}

TEST(CudaRegisterCap, AUsersSettingWinsAndOurOwnOnlyRises) {
    const char *name = "HL_CUDA_JIT_MAX_REGISTERS";
    auto cap = [&] { return std::string(std::getenv(name) ? std::getenv(name) : "unset"); };
    auto reset = [&] {
        ::unsetenv(name);
        ::unsetenv("CORTADO_CUDA_JIT_MAX_REGISTERS");
    };
    reset();
    ::setenv(name, "100", 1);  // the user's
    raise_cuda_register_cap(128);
    EXPECT_EQ(cap(), "100");
    reset();
    raise_cuda_register_cap(0);  // a network without a budget
    EXPECT_EQ(cap(), "unset");
    raise_cuda_register_cap(96);
    EXPECT_EQ(cap(), "96");
    raise_cuda_register_cap(64);  // a later network asking for less keeps the higher cap
    EXPECT_EQ(cap(), "96");
    raise_cuda_register_cap(128);
    EXPECT_EQ(cap(), "128");
    ::setenv(name, "112", 1);  // changed by the user after us: theirs from now on
    raise_cuda_register_cap(160);
    EXPECT_EQ(cap(), "112");
    reset();
}

TEST(OpenClBuildOptions, AUsersSettingWinsAndALaterNetworkReplacesOursInTheVariable) {
    const char *name = "HL_OCL_BUILD_OPTIONS";
    auto options = [&] { return std::string(std::getenv(name) ? std::getenv(name) : "unset"); };
    auto reset = [&] {
        ::unsetenv(name);
        ::unsetenv("CORTADO_OCL_BUILD_OPTIONS");
    };
    reset();
    ::setenv(name, "-cl-fast-relaxed-math", 1);  // the user's
    set_opencl_build_options("-cl-nv-maxrregcount=128");
    EXPECT_EQ(options(), "-cl-fast-relaxed-math");
    reset();
    set_opencl_build_options(nullptr);  // a network without options
    set_opencl_build_options("");
    EXPECT_EQ(options(), "unset");
    set_opencl_build_options("-cl-nv-maxrregcount=128");
    EXPECT_EQ(options(), "-cl-nv-maxrregcount=128");
    set_opencl_build_options("-cl-nv-maxrregcount=96");
    EXPECT_EQ(options(), "-cl-nv-maxrregcount=96");
    ::setenv(name, "-w", 1);  // changed by the user after us: theirs from now on
    set_opencl_build_options("-cl-nv-maxrregcount=128");
    EXPECT_EQ(options(), "-w");
    reset();
}

// Every iteration of a parallel loop runs once, whatever the loop's size and however the pool
// claims them (in shrinking chunks), nested loops included; the first error comes back.
struct CountingLoop {
    int min = 0;
    std::vector<std::atomic<int>> runs;
    int fail_at = -1;
    int inner_size = 0;
    explicit CountingLoop(int size) : runs(size_t(size)) {}
};

int count_iteration(void *, int i, uint8_t *closure) {
    auto &loop = *reinterpret_cast<CountingLoop *>(closure);
    loop.runs[size_t(i - loop.min)].fetch_add(1);
    if (loop.inner_size > 0) {
        CountingLoop inner(loop.inner_size);
        if (parallel_for(nullptr, count_iteration, 0, loop.inner_size, reinterpret_cast<uint8_t *>(&inner)) != 0)
            return -2;
        for (const auto &r : inner.runs)
            if (r.load() != 1) return -3;
    }
    return i == loop.fail_at ? -1 : 0;
}

TEST(ParallelFor, RunsEveryIterationOnceAndReturnsTheError) {
    ::setenv("HL_NUM_THREADS", "4", 1);  // the pool's threads, even on a one-core machine
    for (int size : {0, 1, 2, 3, 7, 64, 1000, 100000}) {
        CountingLoop loop(size);
        loop.min = 5;
        ASSERT_EQ(parallel_for(nullptr, count_iteration, loop.min, size, reinterpret_cast<uint8_t *>(&loop)), 0);
        for (int i = 0; i < size; i++)
            ASSERT_EQ(loop.runs[size_t(i)].load(), 1) << "size " << size << ", iteration " << i;
    }
    CountingLoop failing(500);
    failing.fail_at = 321;
    EXPECT_EQ(parallel_for(nullptr, count_iteration, 0, 500, reinterpret_cast<uint8_t *>(&failing)), -1);
    for (int i = 0; i < 500; i++) EXPECT_EQ(failing.runs[size_t(i)].load(), 1) << i;
    CountingLoop nested(40);
    nested.inner_size = 33;
    EXPECT_EQ(parallel_for(nullptr, count_iteration, 0, 40, reinterpret_cast<uint8_t *>(&nested)), 0);
    for (int i = 0; i < 40; i++) EXPECT_EQ(nested.runs[size_t(i)].load(), 1) << i;
}

}  // namespace
}  // namespace cortado
