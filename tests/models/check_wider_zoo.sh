#!/usr/bin/env bash
# Exports the small variants of a zoo group (make_zoo.py --models GROUP --small, cached
# under the build folder; `wider` unless given, or `papers`) and checks each with nee-run
# against PyTorch's outputs (within 1e-4 of the largest output): on the reference kernels,
# and from a bundle of default schedules (one ISA level, SSE4.1, which every x86-64 CPU
# here runs, to keep the builds short), where at least 99% of the model's FLOPs must run
# in bundle kernels (speech_rnn: all but its recurrences', which run on NeeRecurrence's
# own kernel, its input projections in the bundle; conv_tasnet: all but its global layer
# norms', NeeGroupNorm's). wavenet's gated halves and causal pads must leave no Slice or
# Pad, denoising_unet's GroupNorms must leave their affine step to the SiLU's kernel
# (NeeGroupNormAffine), and conv_tasnet's PReLUs and
# transposed 1-D conv must leave no PRelu or ConvTranspose. Of the papers' models, espcn's
# PixelShuffle must leave no DepthToSpace (a Transpose of views) and ghostnet's ghost
# modules no Slice.
# Usage: check_wider_zoo.sh SOURCE_DIR BUILD_DIR [wider|papers]
set -euo pipefail
src=$1 build=$2 group=${3:-wider}
zoo=$build/zoo-$group-small
/usr/bin/python3 "$src/tests/models/make_zoo.py" "$zoo" --small --models "$group" 2>&1 | grep -v -i warning |
  grep -v "^  " || true
failed=()
fail() { echo "FAILED: $1"; failed+=("$1"); }
case $group in
  wider) models="resnext50 mobilenet_v3 efficientnet_b0 shufflenet_v2 densenet121 googlenet squeezenet convnext_tiny
                 vit_small gpt_decoder gpt_decoder_wide r3d_18 r2plus1d_18 s3d
                 audio_cnn speech_rnn wavenet denoising_unet conv_tasnet" ;;
  papers) models="segformer wav2vec detr mobilevit levit gmlp clip_text espcn yolo ghostnet poolformer resmlp hrnet" ;;
  *) echo "unknown zoo group '$group'" >&2; exit 2 ;;
esac
for model in $models; do
  dir=$zoo/${model}_small
  echo "== $model (reference kernels)"
  "$build/runtime/cli/nee-run" "$dir/model.onnx" --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" \
    --peak-rtol 1e-4 | grep "^check" || fail "$model on the reference kernels"
  echo "== $model (bundle of default schedules)"
  NEE_DB=$zoo/empty.db "$build/tuner/nee-tune" "$dir/model.onnx" --trials 0 --isa sse41 --bundle "$zoo/${model}_bundle" \
    > "$zoo/${model}_tune.log" 2>&1 || { tail -3 "$zoo/${model}_tune.log"; fail "$model: bundle build"; continue; }
  report=$("$build/runtime/cli/nee-run" "$dir/model.onnx" --bundle "$zoo/${model}_bundle" \
    --inputs "$dir/test_data_set_0" --expect "$dir/test_data_set_0" --peak-rtol 1e-4) || fail "$model from its bundle"
  echo "$report" | grep -E "^(FLOPs|check)"
  if [[ $model == wavenet ]] && echo "$report" | grep -qE " (Slice|Pad) "; then fail "$model: a Slice or Pad left"; fi
  if [[ $model == denoising_unet ]] && ! echo "$report" | grep -q " NeeGroupNormAffine "; then
    fail "$model: no NeeGroupNormAffine"
  fi
  if [[ $model == conv_tasnet ]] && echo "$report" | grep -qE " (PRelu|ConvTranspose) "; then
    fail "$model: a PRelu or ConvTranspose left"
  fi
  if [[ $model == espcn ]] && echo "$report" | grep -q " DepthToSpace "; then fail "$model: a DepthToSpace left"; fi
  if [[ $model == ghostnet ]] && echo "$report" | grep -q " Slice "; then fail "$model: a Slice left"; fi
  # The runtime's own kernel that carries a model's FLOPs off the bundle by design.
  own=""
  [[ $model == speech_rnn ]] && own=NeeRecurrence
  [[ $model == conv_tasnet ]] && own=NeeGroupNorm
  if [[ -n $own ]]; then
    others=$(echo "$report" | awk -v own="$own" '/^nodes on the reference kernels/ { listed = 1; next }
      listed && /^  / && $2 != "op" && $2 != own && $3 + 0 > 0 { print $2 }')
    [[ -z $others ]] || fail "$model: FLOPs on the reference kernels in $others"
    echo "$report" | grep -q " $own " || fail "$model: no $own"
    continue
  fi
  share=$(echo "$report" | sed -n 's/^FLOPs per run: .* GFLOP, \([0-9.]*\)% on bundle kernels.*/\1/p')
  if ! awk -v s="${share:-0}" 'BEGIN { exit !(s >= 99.0) }'; then fail "$model: ${share:-no}% of its FLOPs in bundle kernels"; fi
done
if ((${#failed[@]})); then
  printf 'failed step: %s\n' "${failed[@]}"
  exit 1
fi
