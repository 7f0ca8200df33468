// The conv2d generator: the descriptor (shape, variant, knobs, epilogue) arrives as one
// generator parameter; every value in it is a compile-time constant of the kernel. An epilogue
// with a residual sum adds one input, `residual`, after the bias: a tensor shaped and laid out
// as the output.
#include <numeric>

#include "generators/buffer_shape.h"
#include "generators/conv2d.h"
#include "generators/conv2d_channel_lanes.h"
#include "generators/conv2d_winograd.h"
#include "generators/gemm.h"
#include "generators/schedule_registry.h"

namespace cortado {

class Conv2dGenerator : public Halide::Generator<Conv2dGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};
    Input<Buffer<float, 4>> *residual = nullptr;

    void configure() {
        if (read_descriptor<ops::Conv2dOp>(descriptor).choice.epilogue.sum)
            residual = add_input<Buffer<float, 4>>("residual");
    }

    void generate() {
        const auto op = read_descriptor<ops::Conv2dOp>(descriptor);
        const ops::Form &form = op.choice.form;
        // Blocked tensors need an algorithm that reads and writes whole blocks: channels in the
        // lanes, directly, by Winograd, or by the GEMM that puts them in the lanes.
        if ((op.choice.layout_in.blocked() || op.choice.layout_out.blocked()) &&
            !(form.is(ops::Algorithm::ChannelLanes) || form.is(ops::Algorithm::Winograd) ||
              form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes)))
            throw Halide::CompileError(op.choice.variant + " (" + ops::field_value(form) +
                                       ") reads and writes NCHW only");
        if (form.is(ops::Algorithm::Gemm)) return generate_gemm(op);
        if (form.is(ops::Algorithm::ChannelLanes)) return generate_channel_lanes(op);
        if (form.is(ops::Algorithm::Winograd)) return generate_winograd(op);
        const Conv2dShape &s = op.shape;
        Conv2d conv(input, weights, bias, s, op.choice.epilogue, residual_func());
        output = conv.output;
        require_activation_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch}, s.batch, op.choice.batch_strided);
        require_dense_shape(weights, {s.kernel_w, s.kernel_h, s.in_channels / s.group, s.out_channels});
        require_dense_shape(bias, {s.out_channels});
        require_output_shape({s.out_w, s.out_h, s.out_channels, s.batch}, s.batch, op.choice.batch_strided);
        apply_schedule(conv, op, get_target());
    }

  private:
    Halide::Func residual_func() const { return residual ? Halide::Func(*residual) : Halide::Func(); }

    // The output's shape, and the residual's, which is the same (require_activation_shape).
    void require_output_shape(const std::vector<int> &extents, int batch, bool strided) {
        require_activation_shape(output, extents, batch, strided);
        if (residual) require_activation_shape(*residual, extents, batch, strided);
    }

    // Channel-blocked tensors (ops::Layout) hold whole blocks, and a blocked output's blocks
    // lie within the panels its tiles compute.
    static void require_blocks(const Conv2dShape &s, const ops::Choice &choice, int width) {
        const int in_block = choice.layout_in.channel_block, out_block = choice.layout_out.channel_block;
        if (in_block > 0 && s.in_channels % in_block != 0)
            throw Halide::CompileError("the input's " + std::to_string(s.in_channels) +
                                       " channels are not whole blocks of " + std::to_string(in_block));
        if (out_block > 0 && (s.out_channels % out_block != 0 || width % out_block != 0))
            throw Halide::CompileError("the output's " + std::to_string(s.out_channels) + " channels in panels of " +
                                       std::to_string(width) + " are not whole blocks of " + std::to_string(out_block));
    }

    // The channel-lanes variants read the input in place, the weights packed in panels of
    // `width` output channels (width, K, panels, 1), and write the output as (pixels, co, n, 1).
    void generate_channel_lanes(const ops::Conv2dOp &op) {
        using namespace Halide;
        const Conv2dShape &s = op.shape;
        const int width = ops::panel_width(op.choice);
        const int depth = ops::reduction_depth(s);
        const int panels = ops::panel_count(s.out_channels, width);
        Var lane{"lane"}, k{"k"}, panel{"panel"};
        Func packed{"packed_weights"};
        packed(lane, k, panel) = weights(lane, k, panel, 0);
        // A variant with a `channels` knob shares each panel among panel / channels threads (the
        // GPU's); otherwise a tile is a whole panel.
        const bool shared_panels = op.choice.knobs.has("channels");
        const int in_block = op.choice.layout_in.channel_block, out_block = op.choice.layout_out.channel_block;
        require_blocks(s, op.choice, width);
        Conv2dChannelLanes conv(input, packed, bias, s, op.choice.epilogue, width,
                                shared_panels ? width / op.choice.knobs.get("channels") : 0, in_block, out_block,
                                residual_func());
        output = conv.output;
        require_activation_shape(input,
                                 ops::layout_extents(op.choice.layout_in, {s.in_w, s.in_h, s.in_channels, s.batch}, 2),
                                 s.batch, op.choice.batch_strided);
        require_dense_shape(weights, {width, depth, panels, 1});
        require_dense_shape(bias, {s.out_channels});
        require_output_shape(
            ops::layout_extents(op.choice.layout_out, {s.out_w * s.out_h, s.out_channels, s.batch, 1}, 1), s.batch,
            op.choice.batch_strided);
        apply_schedule(conv, op, get_target());
    }

    // The Winograd variants read the input and write the output as they are; the weights come
    // transformed, in panels of `width` output channels per position (width, ci within the
    // group, panels, α²).
    void generate_winograd(const ops::Conv2dOp &op) {
        using namespace Halide;
        const Conv2dShape &s = op.shape;
        const int m = op.choice.form.winograd_m, alpha = ops::winograd_matrices(m, op.choice.form.winograd_r).alpha;
        const int width = ops::panel_width(op.choice), panels = ops::panel_count(s.out_channels, width);
        Var lane{"lane"}, ci{"ci"}, panel{"panel"}, pos{"pos"};
        Func packed{"packed_weights"};
        packed(lane, ci, panel, pos) = weights(lane, ci, panel, pos);
        const bool channels_innermost =
            op.choice.knobs.has("channel_products") && op.choice.knobs.get("channel_products");
        const int in_block = op.choice.layout_in.channel_block, out_block = op.choice.layout_out.channel_block;
        if (out_block > 0) {
            // A blocked output is transformed from channel-innermost products, by blocks of
            // col_block channels or of whole groups (the CPU's knobs).
            const int block_channels = s.group > 1 ? s.out_channels / s.group : op.choice.knobs.get("col_block");
            if (!channels_innermost)
                throw CompileError(
                    "a blocked Winograd output needs the products channel-innermost (channel_products 1)");
            require_blocks(s, op.choice, std::gcd(width, block_channels));
        } else {
            require_blocks(s, op.choice, width);
        }
        Conv2dWinograd conv(input, packed, bias, s, op.choice.epilogue, m, width, op.choice.knobs.get("k_block"),
                            channels_innermost, in_block, out_block, residual_func());
        output = conv.output;
        require_activation_shape(input,
                                 ops::layout_extents(op.choice.layout_in, {s.in_w, s.in_h, s.in_channels, s.batch}, 2),
                                 s.batch, op.choice.batch_strided);
        require_dense_shape(weights, {width, s.in_channels / s.group, panels, alpha * alpha});
        require_dense_shape(bias, {s.out_channels});
        require_output_shape(ops::layout_extents(op.choice.layout_out, {s.out_w, s.out_h, s.out_channels, s.batch}, 2),
                             s.batch, op.choice.batch_strided);
        apply_schedule(conv, op, get_target());
    }

    // The input pixel that output pixel `p` of a 1x1 convolution reads: itself at stride 1.
    static Halide::Expr input_pixel(const Conv2dShape &s, const Halide::Expr &p) {
        if (s.stride_w == 1 && s.stride_h == 1) return p;
        return p % s.out_w * s.stride_w + p / s.out_w * (s.stride_h * s.in_w);
    }

    // The GEMM variants read the tensors in place through the planner's views, with the weights
    // packed in panels of `width` output channels (ops::WeightPacking), zero-padded:
    // - fully connected: input (K, batch), weights (width, K, panels) read as b, output (co, batch);
    // - 1x1: input (pixels, channels, batch) read as b, weights (width, K, panels) read as a,
    //   output (pixels, co, batch);
    // - 1x1 with channels in the lanes: the input read as a, the weights as b, the output
    //   written transposed; at any stride, the input (input pixels, channels, batch).
    // Every view has four dimensions, the unused ones of extent 1.
    void generate_gemm(const ops::Conv2dOp &op) {
        using namespace Halide;
        const Conv2dShape &s = op.shape;
        const ops::ConvGemmForm form = op.choice.form.gemm_form;
        const bool fully_connected = form == ops::ConvGemmForm::FullyConnected;
        const bool channel_lanes = form == ops::ConvGemmForm::ChannelLanes;
        const ops::GemmDims d = ops::conv_gemm_dims(s, form);
        const int width = ops::panel_width(op.choice);
        const int panels = ops::panel_count(s.out_channels, width);
        const int in_block = op.choice.layout_in.channel_block, out_block = op.choice.layout_out.channel_block;
        require_blocks(s, op.choice, width);
        Var k{"k"}, x{"x"}, y{"y"}, n{"n"};
        Func a{"a"}, b{"b"};
        // Tasks and register tiles past the last row or column read the last row, column or
        // panel again (never stored); `likely` lets Halide split off the tile that does.
        const Expr pixel = input_pixel(s, min(likely(y), d.rows - 1));
        if (fully_connected) {
            a(k, y, n) = input(k, min(y, d.rows - 1), 0, 0);
            b(x, k, n) = weights(x % width, k, min(x / width, panels - 1), 0);
        } else if (channel_lanes && in_block > 0) {
            a(k, y, n) = input(blocked_column(pixel, k, in_block), channel_block(k, in_block), n, 0);
            b(x, k, n) = weights(x % width, k, min(x / width, panels - 1), 0);
        } else if (channel_lanes) {
            a(k, y, n) = input(pixel, k, n, 0);
            b(x, k, n) = weights(x % width, k, min(x / width, panels - 1), 0);
        } else {
            a(k, y, n) = weights(y % width, k, min(y / width, panels - 1), 0);
            b(x, k, n) = input(min(x, d.cols - 1), k, n, 0);
        }
        const BiasAxis bias_axis = !op.choice.epilogue.bias           ? BiasAxis::None
                                   : fully_connected || channel_lanes ? BiasAxis::Columns
                                                                      : BiasAxis::Rows;
        Gemm g(a, b, bias, bias_axis, d, op.choice.epilogue, op.choice.knobs.get("k_block"), 4, channel_lanes,
               out_block, residual_func());
        if (channel_lanes) g.a_block = in_block;
        output = g.output;
        const int pixels = s.out_h * s.out_w;
        if (fully_connected) {
            require_activation_shape(input, {d.depth, d.rows, 1, 1}, s.batch, op.choice.batch_strided);
            require_output_shape({d.cols, d.rows, 1, 1}, s.batch, op.choice.batch_strided);
        } else {
            require_activation_shape(
                input, ops::layout_extents(op.choice.layout_in, {s.in_w * s.in_h, s.in_channels, s.batch, 1}, 1),
                s.batch, op.choice.batch_strided);
            require_output_shape(ops::layout_extents(op.choice.layout_out, {pixels, s.out_channels, s.batch, 1}, 1),
                                 s.batch, op.choice.batch_strided);
        }
        require_dense_shape(weights, {width, d.depth, panels, 1});
        require_dense_shape(bias, {s.out_channels});
        apply_schedule(g, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dGenerator, cortado_conv2d)
