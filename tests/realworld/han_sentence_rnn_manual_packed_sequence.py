"""Hierarchical Attention Network (sgrvinod's HAN text-classification tutorial): sentences are packed with
`pack_padded_sequence(..., lengths=....tolist())`, the word-attention output is wrapped back into a hand-built
`PackedSequence(data=..., batch_sizes=..., sorted_indices=..., unsorted_indices=...)` and fed to the
sentence-level GRU; the export fails ("Cannot export individual pack_padded_sequence or pad_packed_sequence;
these operations must occur in pairs").

Source: https://github.com/pytorch/pytorch/issues/26462
"""
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, PackedSequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "documents": {0: "n_documents", 1: "sent_pad_len", 2: "word_pad_len"},
    "sentences_per_document": {0: "n_documents"},
    "words_per_sentence": {0: "n_documents", 1: "sent_pad_len"},
}
BLIND = "domains-22"


class WordAttention(nn.Module):
    def __init__(self, vocab_size=50, emb_size=16, word_rnn_size=8, word_att_size=8):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, emb_size)
        self.word_rnn = nn.GRU(emb_size, word_rnn_size, bidirectional=True, batch_first=True)
        self.word_attention = nn.Linear(2 * word_rnn_size, word_att_size)
        self.word_context_vector = nn.Linear(word_att_size, 1, bias=False)

    def forward(self, sentences, words_per_sentence):
        words, _ = self.word_rnn(self.embeddings(sentences))  # (n_sentences, word_pad_len, 2 * word_rnn_size)
        att_w = self.word_context_vector(F.tanh(self.word_attention(words))).squeeze(2)
        mask = torch.arange(sentences.size(1)).unsqueeze(0) < words_per_sentence.unsqueeze(1)
        word_alphas = torch.softmax(att_w.masked_fill(~mask, -1e4), dim=1)
        return (words * word_alphas.unsqueeze(2)).sum(dim=1)  # (n_sentences, 2 * word_rnn_size)


class HierarchialAttentionNetwork(nn.Module):
    def __init__(self, n_classes=4, word_rnn_size=8, sentence_rnn_size=8):
        super().__init__()
        self.word_attention = WordAttention(word_rnn_size=word_rnn_size)
        self.sentence_rnn = nn.GRU(2 * word_rnn_size, sentence_rnn_size, bidirectional=True, batch_first=True)
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(2 * sentence_rnn_size, n_classes)

    def forward(self, documents, sentences_per_document, words_per_sentence):
        # DOCUMENTS -> SENTENCES (pad sentences removed)
        packed_sentences = pack_padded_sequence(documents, lengths=sentences_per_document.tolist(),
                                                batch_first=True, enforce_sorted=False)
        packed_words_per_sentence = pack_padded_sequence(words_per_sentence, lengths=sentences_per_document.tolist(),
                                                         batch_first=True, enforce_sorted=False)
        t_word_attention = self.word_attention(packed_sentences.data,
                                               packed_words_per_sentence.data)
        t_word_attention = self.dropout(t_word_attention)
        input_packed_sentences = PackedSequence(data=t_word_attention,
                                                batch_sizes=packed_sentences.batch_sizes,
                                                sorted_indices=packed_sentences.sorted_indices,
                                                unsorted_indices=packed_sentences.unsorted_indices)
        out, _ = self.sentence_rnn(input_packed_sentences)
        documents, _ = pad_packed_sequence(out, batch_first=True)  # (n_documents, max_doc_len, 2 * sentence_rnn_size)
        documents = documents.sum(dim=1) / sentences_per_document.unsqueeze(1).float()
        return self.fc(self.dropout(documents))


def make_model():
    return HierarchialAttentionNetwork().eval()


def _docs(n_docs, sent_pad_len, word_pad_len):
    documents = torch.randint(1, 50, (n_docs, sent_pad_len, word_pad_len))
    sentences_per_document = torch.randint(1, sent_pad_len + 1, (n_docs,))
    sentences_per_document[0] = sent_pad_len
    words_per_sentence = torch.randint(1, word_pad_len + 1, (n_docs, sent_pad_len))
    return documents, sentences_per_document, words_per_sentence


def example_inputs():
    return _docs(3, 5, 7)


def other_inputs():
    return [_docs(4, 6, 9), _docs(2, 3, 5)]


def probe_inputs():
    return other_inputs()
