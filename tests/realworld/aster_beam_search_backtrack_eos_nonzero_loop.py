"""ASTER (scene-text recognizer) exported to ONNX: the recognition part "only works for the image used for the
conversion, not for other images". In eval ASTER decodes with `AttentionRecognitionHead.beam_search`, whose
backtracking loops over `stored_emitted_symbols[t].eq(eos).nonzero()` with `int(idx[0] / beam_width)`, Python
lists of per-batch EOS counts and `torch.Tensor(range(batch_size))`, so the trace keeps the EOS positions of the
example image. (ResNet encoder reduced to a conv + mean over height; `candidates / num_classes` written as `//`
because torch >= 1.5 divides integers to float, the torch 0.4 code meant floor division.)

Source: https://github.com/ayumiymk/aster.pytorch/issues/91
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-59"


class AttentionUnit(nn.Module):
  def __init__(self, sDim, xDim, attDim):
    super(AttentionUnit, self).__init__()
    self.sDim, self.xDim, self.attDim = sDim, xDim, attDim
    self.sEmbed = nn.Linear(sDim, attDim)
    self.xEmbed = nn.Linear(xDim, attDim)
    self.wEmbed = nn.Linear(attDim, 1)

  def forward(self, x, sPrev):
    batch_size, T, _ = x.size()                      # [b x T x xDim]
    x = x.view(-1, self.xDim)                        # [(b x T) x xDim]
    xProj = self.xEmbed(x)                           # [(b x T) x attDim]
    xProj = xProj.view(batch_size, T, -1)            # [b x T x attDim]
    sPrev = sPrev.squeeze(0)
    sProj = self.sEmbed(sPrev)                       # [b x attDim]
    sProj = torch.unsqueeze(sProj, 1)                # [b x 1 x attDim]
    sProj = sProj.expand(batch_size, T, self.attDim) # [b x T x attDim]
    sumTanh = torch.tanh(sProj + xProj)
    sumTanh = sumTanh.view(-1, self.attDim)
    vProj = self.wEmbed(sumTanh) # [(b x T) x 1]
    vProj = vProj.view(batch_size, T)
    alpha = F.softmax(vProj, dim=1) # attention weights for each sample in the minibatch
    return alpha


class DecoderUnit(nn.Module):
  def __init__(self, sDim, xDim, yDim, attDim):
    super(DecoderUnit, self).__init__()
    self.attention_unit = AttentionUnit(sDim, xDim, attDim)
    self.tgt_embedding = nn.Embedding(yDim+1, attDim) # the last is used for <BOS>
    self.gru = nn.GRU(input_size=xDim+attDim, hidden_size=sDim, batch_first=True)
    self.fc = nn.Linear(sDim, yDim)

  def forward(self, x, sPrev, yPrev):
    batch_size, T, _ = x.size()
    alpha = self.attention_unit(x, sPrev)
    context = torch.bmm(alpha.unsqueeze(1), x).squeeze(1)
    yProj = self.tgt_embedding(yPrev.long())
    output, state = self.gru(torch.cat([yProj, context], 1).unsqueeze(1), sPrev)
    output = output.squeeze(1)
    output = self.fc(output)
    return output, state


class AttentionRecognitionHead(nn.Module):
  def __init__(self, num_classes, in_planes, sDim, attDim, max_len_labels):
    super(AttentionRecognitionHead, self).__init__()
    self.num_classes = num_classes # this is the output classes. So it includes the <EOS>.
    self.sDim = sDim
    self.max_len_labels = max_len_labels
    self.decoder = DecoderUnit(sDim=sDim, xDim=in_planes, yDim=num_classes, attDim=attDim)

  def beam_search(self, x, beam_width, eos):

    def _inflate(tensor, times, dim):
      repeat_dims = [1] * tensor.dim()
      repeat_dims[dim] = times
      return tensor.repeat(*repeat_dims)

    batch_size, l, d = x.size()
    inflated_encoder_feats = x.unsqueeze(1).permute((1,0,2,3)).repeat((beam_width,1,1,1)).permute((1,0,2,3)).contiguous().view(-1, l, d)

    # Initialize the decoder
    state = torch.zeros(1, batch_size * beam_width, self.sDim)
    pos_index = (torch.Tensor(range(batch_size)) * beam_width).long().view(-1, 1)

    # Initialize the scores
    sequence_scores = torch.Tensor(batch_size * beam_width, 1)
    sequence_scores.fill_(-float('Inf'))
    sequence_scores.index_fill_(0, torch.Tensor([i * beam_width for i in range(0, batch_size)]).long(), 0.0)

    # Initialize the input vector
    y_prev = torch.zeros((batch_size * beam_width)).fill_(self.num_classes)

    # Store decisions for backtracking
    stored_scores          = list()
    stored_predecessors    = list()
    stored_emitted_symbols = list()

    for i in range(self.max_len_labels):
      output, state = self.decoder(inflated_encoder_feats, state, y_prev)
      log_softmax_output = F.log_softmax(output, dim=1)

      sequence_scores = _inflate(sequence_scores, self.num_classes, 1)
      sequence_scores += log_softmax_output
      scores, candidates = sequence_scores.view(batch_size, -1).topk(beam_width, dim=1)

      # Reshape input = (bk, 1) and sequence_scores = (bk, 1)
      y_prev = (candidates % self.num_classes).view(batch_size * beam_width)
      sequence_scores = scores.view(batch_size * beam_width, 1)

      # Update fields for next timestep
      predecessors = (candidates // self.num_classes + pos_index.expand_as(candidates)).view(batch_size * beam_width, 1)
      state = state.index_select(1, predecessors.squeeze())

      # Update sequence socres and erase scores for <eos> symbol so that they aren't expanded
      stored_scores.append(sequence_scores.clone())
      eos_indices = y_prev.view(-1, 1).eq(eos)
      if eos_indices.nonzero().dim() > 0:
        sequence_scores.masked_fill_(eos_indices, -float('inf'))

      # Cache results for backtracking
      stored_predecessors.append(predecessors)
      stored_emitted_symbols.append(y_prev)

    #====== backtrak ======#
    p = list()
    l = [[self.max_len_labels] * beam_width for _ in range(batch_size)]  # Placeholder for lengths of top-k sequences

    sorted_score, sorted_idx = stored_scores[-1].view(batch_size, beam_width).topk(beam_width)
    s = sorted_score.clone()

    batch_eos_found = [0] * batch_size  # the number of EOS found
    t = self.max_len_labels - 1
    t_predecessors = (sorted_idx + pos_index.expand_as(sorted_idx)).view(batch_size * beam_width)
    while t >= 0:
      # Re-order the variables with the back pointer
      current_symbol = stored_emitted_symbols[t].index_select(0, t_predecessors)
      t_predecessors = stored_predecessors[t].index_select(0, t_predecessors).squeeze()
      eos_indices = stored_emitted_symbols[t].eq(eos).nonzero()
      if eos_indices.dim() > 0:
        for i in range(eos_indices.size(0)-1, -1, -1):
          idx = eos_indices[i]
          b_idx = int(idx[0] / beam_width)
          res_k_idx = beam_width - (batch_eos_found[b_idx] % beam_width) - 1
          batch_eos_found[b_idx] += 1
          res_idx = b_idx * beam_width + res_k_idx

          # Replace the old information in return variables
          # with the new ended sequence information
          t_predecessors[res_idx] = stored_predecessors[t][idx[0]]
          current_symbol[res_idx] = stored_emitted_symbols[t][idx[0]]
          s[b_idx, res_k_idx] = stored_scores[t][idx[0], [0]]
          l[b_idx][res_k_idx] = t + 1

      # record the back tracked results
      p.append(current_symbol)
      t -= 1

    # Sort and re-order again as the added ended sequences may change the order (very unlikely)
    s, re_sorted_idx = s.topk(beam_width)
    for b_idx in range(batch_size):
      l[b_idx] = [l[b_idx][k_idx.item()] for k_idx in re_sorted_idx[b_idx,:]]

    re_sorted_idx = (re_sorted_idx + pos_index.expand_as(re_sorted_idx)).view(batch_size*beam_width)

    # Reverse the sequences and re-order at the same time
    p = [step.index_select(0, re_sorted_idx).view(batch_size, beam_width, -1) for step in reversed(p)]
    p = torch.cat(p, -1)[:,0,:]
    return p, torch.ones_like(p)


class ASTERRecognizer(nn.Module):
  """Eval path of ModelBuilder.forward: encoder -> decoder.beam_search (beam_width=5)."""

  def __init__(self, rec_num_classes=12, eos=9, max_len_labels=10, beam_width=5):
    super(ASTERRecognizer, self).__init__()
    self.conv = nn.Conv2d(3, 64, 3, padding=1)
    self.decoder = AttentionRecognitionHead(num_classes=rec_num_classes, in_planes=64, sDim=32, attDim=32,
                                            max_len_labels=max_len_labels)
    self.eos = eos
    self.beam_width = beam_width

  def forward(self, x):
    encoder_feats = F.relu(self.conv(x)).mean(2).transpose(1, 2)  # [b x T x C]
    encoder_feats = encoder_feats.contiguous()
    rec_pred, rec_pred_scores = self.decoder.beam_search(encoder_feats, self.beam_width, self.eos)
    return rec_pred


def make_model():
  return ASTERRecognizer().eval()


def example_inputs():
  return (torch.randn(2, 3, 8, 25),)


def other_inputs():
  return [(torch.randn(3, 3, 8, 25),), (torch.randn(1, 3, 8, 25),)]


def probe_inputs():
  return other_inputs()
