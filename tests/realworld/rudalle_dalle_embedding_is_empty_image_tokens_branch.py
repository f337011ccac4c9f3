"""ruDALL-E's DalleModel.forward builds the token embeddings of the text prompt plus the image tokens generated so far:
`if exists(image_input_ids) and not is_empty(image_input_ids)` (`t.numel() == 0`) picks text-only vs text+image, and
`if embeddings.shape[1] > self.total_seq_length` drops the last position. The ONNX port ("split onnx models") moved
this whole prologue out of the exported graph into a separate `embedding()` run in PyTorch. (The transformer between
embeddings and logits is cut to one linear layer.)

Source: https://github.com/HighCWu/ru-dalle/commit/c2d38dfaf39f8083412a962059bc4d6fdd1c9012
"""
import torch
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-76"


def exists(val):
    return val is not None


def is_empty(t):
    return t.numel() == 0


class DalleModel(torch.nn.Module):
    def __init__(self, device="cpu", vocab_size=32, hidden_size=16, text_seq_length=8, image_tokens_per_dim=4,
                 image_vocab_size=64):
        super(DalleModel, self).__init__()
        self.device = device
        self.image_tokens_per_dim = image_tokens_per_dim
        self.image_seq_length = image_tokens_per_dim ** 2
        self.text_seq_length = text_seq_length
        self.total_seq_length = self.text_seq_length + self.image_seq_length
        self.total_vocab_size = vocab_size + image_vocab_size
        self.vocab_size = vocab_size

        self.text_embeddings = torch.nn.Embedding(vocab_size, hidden_size)
        self.image_embeddings = torch.nn.Embedding(image_vocab_size, hidden_size)
        self.text_pos_embeddings = torch.nn.Embedding(text_seq_length + 1, hidden_size)
        self.image_row_embeddings = torch.nn.Embedding(image_tokens_per_dim, hidden_size)
        self.image_col_embeddings = torch.nn.Embedding(image_tokens_per_dim, hidden_size)
        self.transformer = torch.nn.Linear(hidden_size, hidden_size)   # stand-in for DalleTransformer
        self.to_logits = torch.nn.Sequential(
            torch.nn.LayerNorm(hidden_size),
            torch.nn.Linear(hidden_size, self.total_vocab_size),
        )

    def get_image_pos_embeddings(self, image_input_ids, past_length=0):
        input_shape = image_input_ids.size()
        row_ids = torch.arange(past_length, input_shape[-1] + past_length,
                               dtype=torch.long, device=self.device) // self.image_tokens_per_dim
        row_ids = row_ids.unsqueeze(0).view(-1, input_shape[-1])
        col_ids = torch.arange(past_length, input_shape[-1] + past_length,
                               dtype=torch.long, device=self.device) % self.image_tokens_per_dim
        col_ids = col_ids.unsqueeze(0).view(-1, input_shape[-1])
        return self.image_row_embeddings(row_ids) + self.image_col_embeddings(col_ids)

    def forward(self, input_ids):
        text = input_ids[:, :self.text_seq_length]
        text_range = torch.arange(self.text_seq_length)
        text_range += (self.vocab_size - self.text_seq_length)
        text_range = text_range.to(self.device)
        text = torch.where(text == 0, text_range, text)
        # some hardcode :)
        text = F.pad(text, (1, 0), value=2)
        text_embeddings = self.text_embeddings(text) + \
            self.text_pos_embeddings(torch.arange(text.shape[1], device=self.device))

        image_input_ids = input_ids[:, self.text_seq_length:]

        if exists(image_input_ids) and not is_empty(image_input_ids):
            image_embeddings = self.image_embeddings(image_input_ids) + \
                self.get_image_pos_embeddings(image_input_ids, past_length=0)
            embeddings = torch.cat((text_embeddings, image_embeddings), dim=1)
        else:
            embeddings = text_embeddings
        # some hardcode :)
        if embeddings.shape[1] > self.total_seq_length:
            embeddings = embeddings[:, :-1]

        alpha = 0.1
        embeddings = embeddings * alpha + embeddings.detach() * (1-alpha)

        transformer_output = self.transformer(embeddings)
        logits = self.to_logits(transformer_output)
        return logits


def _ids(batch, n_image):
    text = torch.randint(0, 32, (batch, 8))
    image = torch.randint(0, 64, (batch, n_image))
    return torch.cat((text, image), dim=1)


def make_model():
    return DalleModel().eval()


def example_inputs():
    return (_ids(2, 5),)                  # prompt + 5 generated image tokens


def other_inputs():
    return [(_ids(3, 0),),                # first generation step: text prompt only
            (_ids(1, 16),)]               # full text + image sequence (training length)


def probe_inputs():
    return other_inputs()
